"""Every form a page shows its owner, a rater or a participant, each field given a hostile value
(NUL, 100,000 characters, numbers past 64 bits or a float's range, NaN, a path, markup; a file
named like a path, with a NUL, 300 characters long or only an extension), never answers 500: a
form error, a refusal or a redirect. What each post writes is rolled back.

Forms are found by walking every page route of the route walker's world and reading its HTML,
so a new form is thrown at without touching this file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotate.rating.models import Campaign
from annotate.rating.services.assignment import rating_next
from annotate.rating.services.campaigns import campaign_join
from tests.routes_kit import all_routes, calls
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

HOSTILE_FILE_NAMES = (
    "../../etc/x.jsonl",
    "x\x00.jsonl",
    "a" * 300 + ".jsonl",
    ".jsonl",
    "\U0001f600.tsv.gz",
    "C:\\x\\y.jsonl",
)
ONE_ITEM = b'{"id": "a", "message": "hi", "references": [{"text": "hello"}]}\n'


def hostile_posts(fields: dict[str, str], files: set[str]) -> Iterator[tuple[str, str, dict]]:
    """(field, what it was given, the POST) for each field and each hostile value of its kind."""
    for name in sorted(set(fields) - {"csrfmiddlewaretoken"}):
        if name in files:
            for file_name in HOSTILE_FILE_NAMES:
                yield name, file_name, {**fields, name: SimpleUploadedFile(file_name, ONE_ITEM)}
        else:
            for value in HOSTILE:
                yield name, value, {**fields, name: value}


def forms_of(client, world) -> dict[tuple[str, tuple[str, ...]], tuple[str, dict, set[str]]]:
    """The POST forms on every page this client can open, one per kind of action and fields."""
    found = {}
    for route in all_routes():
        if route.api:
            continue
        for _method, path, _private, _missing in calls(world, route, ["get"]):
            page = client.get(path)
            if page.status_code != 200 or "text/html" not in page.get("Content-Type", ""):
                continue
            forms = PostForms(page.content.decode())
            for action, fields in forms.forms:
                kind = (re.sub(r"\d+", "N", action or path), tuple(sorted(fields)))
                found.setdefault(kind, (action or path, fields, forms.file_fields & set(fields)))
    return found


# Thousands of requests: over the suite's 300 s limit on a machine whose cores are shared (the
# owner's walk took longer at a load of 12 on 2 cores); a hang still fails.
@pytest.mark.timeout(900)
@pytest.mark.parametrize("who", ["owner", "rater", "participant"])
def test_no_form_answers_500_to_a_hostile_value(world, client, who):
    user = world.owner if who == "owner" else world.personas[who]
    if who == "rater":  # with an item leased to answer (a POST's work): the rating form
        campaign = Campaign.objects.get(pk=world.objects["campaign"]["hidden"])
        campaign_join(campaign=campaign, rater=user)
        rating_next(campaign=campaign, rater=user)
    client.force_login(user)
    client.raise_request_exception = False  # a crash is a 500 to report, not a test error
    forms = forms_of(client, world)
    # The walk found them: every persona's forms, the rater's rating form among them.
    assert len(forms) >= {"owner": 40, "rater": 5, "participant": 9}[who]
    assert who != "rater" or any(action.endswith("rate/N/") for action, _ in forms)
    crashed = []
    for action, fields, files in forms.values():
        for name, value, posted in hostile_posts(fields, files):
            if status_undone(lambda: client.post(action, posted)) >= 500:  # noqa: B023
                crashed.append(f"{action} {name}={value[:24]!r}")
    assert crashed == []
