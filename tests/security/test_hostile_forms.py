"""Every form a page shows its owner, a rater or a participant, each field given a hostile value
(NUL, 100,000 characters, numbers past 64 bits or a float's range, NaN, a path, markup), never
answers 500: a form error, a refusal or a redirect. What each post writes is rolled back.

Forms are found by walking every page route of the route walker's world and reading its HTML,
so a new form is thrown at without touching this file.
"""

from __future__ import annotations

import re

import pytest

from annotate.rating.models import Campaign
from annotate.rating.services.campaigns import campaign_join
from tests.security.test_route_walker import all_routes, calls
from tests.writes_kit import PostForms, status_undone

pytestmark = pytest.mark.slow  # a few thousand posts: make test and CI, not test-fast

HOSTILE = (
    "\x00",
    "x" * 100_000,
    "-1",
    "99999999999999999999",
    "1e999",
    "nan",
    "../../etc/passwd",
    "<script>alert(1)</script>",
    "",
)


def forms_of(client, world) -> dict[tuple[str, tuple[str, ...]], tuple[str, dict[str, str]]]:
    """The POST forms on every page this client can open, one per kind of action and fields."""
    found = {}
    for route in all_routes():
        if route.api:
            continue
        for _method, path, _private, _missing in calls(world, route, ["get"]):
            page = client.get(path)
            if page.status_code != 200 or "text/html" not in page.get("Content-Type", ""):
                continue
            for action, fields in PostForms(page.content.decode()).forms:
                action = action or path
                found.setdefault(
                    (re.sub(r"\d+", "N", action), tuple(sorted(fields))), (action, fields)
                )
    return found


@pytest.mark.parametrize("who", ["owner", "rater", "participant"])
def test_no_form_answers_500_to_a_hostile_value(world, client, who):
    user = world.owner if who == "owner" else world.personas[who]
    if who == "rater":  # with an item leased to answer: the rating form
        campaign = Campaign.objects.get(pk=world.objects["campaign"]["hidden"])
        campaign_join(campaign=campaign, rater=user)
    client.force_login(user)
    client.raise_request_exception = False  # a crash is a 500 to report, not a test error
    forms = forms_of(client, world)
    print(who, sorted(forms))
    assert len(forms) >= {"owner": 25, "rater": 3, "participant": 3}[who]  # the walk found them
    crashed = []
    for action, fields in forms.values():
        for name in set(fields) - {"csrfmiddlewaretoken"}:
            for value in HOSTILE:
                posted = {**fields, name: value}
                if status_undone(lambda: client.post(action, posted)) >= 500:  # noqa: B023
                    crashed.append(f"{action} {name}={value[:24]!r}")
    assert crashed == []
