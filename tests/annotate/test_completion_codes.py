"""Checking the completion codes participants hand in: the rule, the owner's API and page."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotate.rating.forms import code_lines_read
from annotate.rating.models import CampaignRater
from annotate.rating.selectors.completion import (
    MAX_CODE_CHECKS,
    VERDICTS,
    Verdict,
    completion_code_for,
    completion_code_shown,
    completion_codes_check,
)
from annotate.rating.services.campaigns import crowd_rater_get_or_create
from core.lines import LineProblems

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(make_campaign):
    return make_campaign()


def crowd_code(campaign, participant: str, qc_status: str = "passed") -> str:
    """A crowd participant who joined and was judged `qc_status`, and their code."""
    user = crowd_rater_get_or_create(campaign=campaign, participant_id=participant)
    CampaignRater.objects.filter(rater=user).update(qc_status="passed")
    code = completion_code_for(campaign=campaign, membership=CampaignRater.objects.get(rater=user))
    CampaignRater.objects.filter(rater=user).update(qc_status=qc_status)
    return code


def verdicts(campaign, *entries) -> list[str]:
    return [c.verdict for c in completion_codes_check(campaign=campaign, entries=entries).results]


def test_a_code_is_valid_for_its_participant_in_its_campaign_after_quality_control(
    campaign, make_campaign
):
    code = crowd_code(campaign, "PID-1")
    other = make_campaign(dataset=campaign.dataset, name="Other")
    crowd_code(other, "PID-1")
    assert verdicts(
        campaign,
        ("PID-1", code),
        (" PID-1 ", f" {code[:5].lower()}-{code[5:]} "),  # as people type it
        ("PID-1", "AAAAAAAAAA"),
        ("PID-2", code),
    ) == [Verdict.VALID, Verdict.VALID, Verdict.WRONG_CODE, Verdict.UNKNOWN]
    assert verdicts(other, ("PID-1", code)) == [Verdict.WRONG_CODE]


def test_the_right_code_of_a_participant_not_passed_says_why(campaign):
    pending = crowd_code(campaign, "PID-P", qc_status="pending")
    failed = crowd_code(campaign, "PID-F", qc_status="failed")
    checks = completion_codes_check(
        campaign=campaign, entries=[("PID-P", pending), ("PID-F", failed)]
    )
    assert [c.verdict for c in checks.results] == [Verdict.QC_PENDING, Verdict.QC_FAILED]
    assert (checks.checked, checks.valid) == (2, 0)
    assert "quality control" in checks.results[1].message


def test_an_account_raters_receipt_is_checked_by_username(campaign, make_rater):
    rater = make_rater(campaign)
    membership = CampaignRater.objects.get(rater=rater)
    membership.qc_status = "passed"
    membership.save()
    receipt = completion_code_shown(campaign=campaign, membership=membership, answered=3)
    assert verdicts(campaign, (rater.username, receipt)) == [Verdict.VALID]
    # The receipt is no crowd code: a crowd id of the same text does not take it.
    crowd_code(campaign, rater.username)
    assert verdicts(campaign, (rater.username, receipt)) == [Verdict.WRONG_CODE]


def test_codes_outside_ascii_are_wrong_not_errors(campaign):
    crowd_code(campaign, "PID-1")
    assert verdicts(campaign, ("PID-1", "ÄÖÜ–日本"), ("日本", "x")) == [
        Verdict.WRONG_CODE,
        Verdict.UNKNOWN,
    ]


def test_one_query_however_many_codes(campaign, django_assert_num_queries):
    codes = [(f"PID-{n}", crowd_code(campaign, f"PID-{n}")) for n in range(30)]
    with django_assert_num_queries(1):
        one = completion_codes_check(campaign=campaign, entries=codes[:1])
    with django_assert_num_queries(1):
        many = completion_codes_check(campaign=campaign, entries=codes)
    assert (one.valid, many.valid) == (1, 30)


# -- pasted lines --------------------------------------------------------------------------


def read(text: str) -> tuple[list[tuple[str, str]], LineProblems]:
    problems = LineProblems()
    return code_lines_read(enumerate(text.splitlines(), start=1), problems), problems


def test_pasted_lines_take_tabs_commas_semicolons_or_spaces_and_a_header():
    text = 'WorkerId,Completion code\nA1,CODE1\n\n"A2"\t"CODE2"\nA3; CODE3\nA4   CODE4\n"A,5",C5\n'
    entries, problems = read(text)
    assert entries == [
        ("A1", "CODE1"),
        ("A2", "CODE2"),
        ("A3", "CODE3"),
        ("A4", "CODE4"),
        ("A,5", "C5"),  # a quoted comma belongs to its value
    ]
    assert not problems.problems


def test_nothing_or_too_much_is_named(monkeypatch):
    assert [str(p) for p in read("\n  \n")[1].problems] == ["no participant and code given"]
    monkeypatch.setattr("annotate.rating.forms.MAX_CODE_CHECKS", 2)
    entries, problems = read("A,1\nB,2\nC,3\nD,4\n")
    assert entries == [("A", "1"), ("B", "2")]
    assert [str(p) for p in problems.problems] == [
        "line 3: more than 2 codes: check the rest apart"
    ]


def test_each_bad_line_is_named():
    text = "A1,CODE1\nA2\nA3,B,C\n" + "x" * 151 + ",C\nA5," + "c" * 65 + "\nA6,\n"
    entries, problems = read(text)
    assert entries == [("A1", "CODE1")]
    assert [str(p) for p in problems.problems] == [
        "line 2: give a participant and a code (found 1 values)",
        "line 3: give a participant and a code (found 3 values)",
        "line 4, participant: longer than 150 characters",
        "line 5, code: longer than 64 characters",
        "line 6: the participant or the code is empty",
    ]


def test_what_the_csv_module_refuses_is_named_too():
    problems = LineProblems()
    lines = [(1, "A1,CODE1"), (2, "A\r2,CODE2"), (3, "x" * 200_000 + ",CODE3")]
    assert code_lines_read(lines, problems) == [("A1", "CODE1")]
    assert [str(p) for p in problems.problems] == [
        "line 2: a carriage return (\\r) inside an unquoted cell: quote the cell",
        "line 3, participant: longer than 150 characters",  # past the csv module's 128 KiB
    ]


# -- API -----------------------------------------------------------------------------------


def api_url(campaign) -> str:
    return reverse("api-campaign-codes", args=[campaign.pk])


@pytest.mark.parametrize(
    ("who", "status"), [("owner", 200), ("staff", 200), ("other", 404), ("rater", 404)]
)
def test_only_the_owner_and_staff_check_codes(campaign, client_for, user_named, who, status):
    code = crowd_code(campaign, "PID-1")
    body = {"entries": [{"participant": "PID-1", "code": code}, {"participant": "x", "code": "y"}]}
    response = client_for(user_named(who)).post(api_url(campaign), body, format="json")
    assert response.status_code == status
    if status == 200:
        assert response.json()["checked"] == 2 and response.json()["valid"] == 1
        first, second = response.json()["results"]
        assert first == {
            "participant": "PID-1",
            "code": code,
            "valid": True,
            "verdict": "valid",
            "message": "Valid: this participant passed quality control.",
        }
        assert second["verdict"] == "unknown_participant" and not second["valid"]


def test_anonymous_visitors_are_refused(campaign, client_for):
    response = client_for(None).post(api_url(campaign), {"entries": []}, format="json")
    assert response.status_code in (401, 403)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"entries": []}, "entries"),
        ({"entries": "PID-1,CODE"}, "entries"),
        ({}, "entries"),
        ({"entries": [{"participant": "PID-1"}]}, "code"),
        ({"entries": [{"participant": "p" * 151, "code": "c"}]}, "participant"),
        ({"entries": [{"participant": "p\x00", "code": "c"}]}, "participant"),
        ({"entries": [{"participant": "p", "code": "c"}] * (MAX_CODE_CHECKS + 1)}, "entries"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(campaign, client_for, owner, body, field):
    response = client_for(owner).post(api_url(campaign), body, format="json")
    assert response.status_code == 400
    assert field in str(response.json())


def test_the_entries_come_as_json_only(campaign, client_for, owner):
    response = client_for(owner).post(api_url(campaign), {"entries": "a"}, format="multipart")
    assert response.status_code == 415


# -- page ----------------------------------------------------------------------------------


def page_url(campaign) -> str:
    return reverse("campaign-codes", args=[campaign.pk])


def test_the_owner_pastes_codes_and_reads_the_verdicts(campaign, client_for, owner):
    code = crowd_code(campaign, "PID-1")
    crowd_code(campaign, "PID-2", qc_status="failed")
    client = client_for(owner)
    dashboard = client.get(reverse("campaign-dashboard", args=[campaign.pk])).content.decode()
    assert page_url(campaign) in dashboard
    assert client.get(page_url(campaign)).status_code == 200
    lines = f"participant,code\nPID-1,{code}\nPID-1,WRONG\nPID-3,{code}\n"
    page = client.post(page_url(campaign), {"lines": lines}).content.decode()
    assert "1 of 3 valid" in page
    assert page.count('class="verdict-valid"') == 1
    assert page.count('class="verdict-wrong_code"') == 1
    assert page.count('class="verdict-unknown_participant"') == 1


def test_a_bad_paste_names_its_lines_and_checks_nothing(campaign, client_for, owner):
    response = client_for(owner).post(page_url(campaign), {"lines": "PID-1,A\nPID-2\n"})
    page = response.content.decode()
    assert response.status_code == 200
    assert "line 2: give a participant and a code" in page
    assert "code-checks" not in page


@pytest.mark.parametrize("who", ["other", "rater"])
def test_others_do_not_find_the_page(campaign, client_for, user_named, who):
    client = client_for(user_named(who))
    assert client.get(page_url(campaign)).status_code == 404
    assert client.post(page_url(campaign), {"lines": "a,b"}).status_code == 404


def test_anonymous_visitors_are_sent_to_log_in(campaign, client_for):
    response = client_for(None).get(page_url(campaign))
    assert response.status_code == 302 and "login" in response["Location"]


# -- command -------------------------------------------------------------------------------


def check_command(campaign_id, path) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("check_completion_codes", str(campaign_id), str(path), stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_the_command_prints_each_verdict_as_csv(campaign, tmp_path):
    code = crowd_code(campaign, "PID-1")
    path = tmp_path / "codes.csv"
    path.write_bytes(f"\ufeffWorkerId,code\nPID-1,{code}\n=cmd(),{code}\n".encode())
    out, err = check_command(campaign.pk, path)
    assert list(csv.reader(io.StringIO(out))) == [
        ["participant", "code", "verdict", "message"],
        ["PID-1", code, "valid", "Valid: this participant passed quality control."],
        ["'=cmd()", code, "unknown_participant", VERDICTS["unknown_participant"]],
    ]
    assert "1 of 2 valid" in err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"PID-1,A\nPID-2\n", "line 2: give a participant and a code"),
        (b"PID-1,A\n\xff\xfe,B\n", "line 2: not valid UTF-8"),
        (b"\n\n", "no participant and code given"),
    ],
)
def test_the_command_names_what_is_wrong(campaign, tmp_path, content, message):
    path = tmp_path / "codes.csv"
    path.write_bytes(content)
    with pytest.raises(CommandError, match=message):
        check_command(campaign.pk, path)


def test_the_command_names_a_missing_file_or_campaign(campaign, tmp_path):
    with pytest.raises(CommandError, match=r"nowhere.csv: no such file\.$"):
        check_command(campaign.pk, tmp_path / "nowhere.csv")
    with pytest.raises(CommandError, match=r"is a directory, not a file\.$"):
        check_command(campaign.pk, tmp_path)
    with pytest.raises(CommandError, match="No campaign 0"):
        check_command(0, tmp_path / "nowhere.csv")
