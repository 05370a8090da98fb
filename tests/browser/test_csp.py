"""Under the Content-Security-Policy, the API docs render with nothing from outside, and the
pages' own scripts run: no CSP violation in the console."""

import pytest
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _watch(page: Page, live_server) -> tuple[list[str], list[str]]:
    violations: list[str] = []
    outside: list[str] = []
    page.on(
        "console",
        lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None,
    )
    page.on(
        "request",
        lambda r: (
            outside.append(r.url)
            if not r.url.startswith((live_server.url, "data:", "blob:"))
            else None
        ),
    )
    return violations, outside


@pytest.mark.parametrize(
    "path, shows", [("/api/redoc/", "DeltaBLEU Studio API"), ("/api/docs/", "DeltaBLEU Studio API")]
)
def test_the_api_docs_render_from_this_server_alone(live_server, page: Page, path, shows):
    violations, outside = _watch(page, live_server)
    page.goto(live_server.url + path)
    expect(page.get_by_text(shows).first).to_be_visible(timeout=20_000)
    # ReDoc's bundle hard-codes its maker's logo from a CDN; the policy blocks it (Chromium
    # reports the attempt, nothing is fetched) and ReDoc hides the broken image. Nothing else
    # may be blocked or asked of another host.
    known = "https://cdn.redoc.ly/redoc/logo-mini.svg"
    assert [v for v in violations if known not in v] == []
    assert [url for url in outside if url != known] == []


def test_a_dataset_page_runs_its_script_under_the_policy(
    live_server, page: Page, make_dataset, owner
):
    from tests.browser.test_import_flow import log_in

    make_dataset(visibility="public", slug="chat")
    violations, outside = _watch(page, live_server)
    log_in(page, live_server.url, "owner")
    page.goto(f"{live_server.url}/datasets/chat/")
    page.get_by_role("button", name="Show all references").click()
    expect(page.get_by_text("that last goal was unbelievable")).to_be_visible()
    assert violations == [] and outside == []
