"""Per-response scores of metrics computed elsewhere, uploaded to a leaderboard by its owner:
what is stored, every refusal by line and column, the API, the page, the command, who may,
and what a hidden test split's non-owners never learn."""

import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from annotate.judgments.models import ExternalMetric, ExternalScore
from annotate.judgments.services.metrics import MetricScoresRejected
from scoring.leaderboards.models import LeaderboardMetric
from scoring.leaderboards.selectors.external_metrics import leaderboard_metric_means
from scoring.leaderboards.services.external_metrics import leaderboard_metrics_import
from tests.conftest import leaderboard_of, release_of, user_of
from tests.schema_kit import api_schema
from tests.scoring.conftest import GOOD, NONSENSE, PERFECT, TEST_POOR
from tests.scoring.world_kit import scored_now, shared_scoring_world

pytestmark = pytest.mark.django_db
API = "/api/v1/leaderboards/{}/metrics/"
ITEMS = ("d1", "d2", "d3", "d5")  # the dev board's scored items


def _world(owner):
    board = leaderboard_of(owner, release=release_of(owner))
    other = user_of("other", "researcher")
    three = [
        scored_now(board, other, PERFECT, method="exact"),
        scored_now(board, owner, GOOD, method="close"),
        scored_now(board, owner, NONSENSE, method="noise"),
    ]
    hidden = leaderboard_of(owner, release=board.release, split="test", slug="hidden")
    poor = scored_now(hidden, owner, TEST_POOR, method="poor")
    return {"board": board, "three": three, "hidden": hidden, "poor": [poor]}


shared, world, board, three, hidden, poor = shared_scoring_world(
    _world, "board", "three", "hidden", "poor"
)


def _tsv(three, extra=""):
    lines = ["item\tsystem\tcomet\tllm_judge"]
    for k, submission in enumerate(three):
        for j, item in enumerate(ITEMS):
            lines.append(f"{item}\t{submission.pk}\t{0.9 - k * 0.3 + j / 100}\t{5 - k}")
    return "\n".join(lines) + "\n" + extra


def _import(board, user, text, **kwargs):
    return leaderboard_metrics_import(
        leaderboard=board, user=user, name="scores.tsv", data=text.encode(), **kwargs
    )


def test_the_owner_uploads_and_the_scores_land_on_the_submissions_systems(board, three, owner):
    created = _import(board, owner, _tsv(three), lower_is_better=["llm_judge"], description="v1")
    assert [m.name for m in created] == ["comet", "llm_judge"]
    comet, judge = created
    assert comet.judgment_set is None and comet.leaderboard_link.leaderboard == board
    assert comet.higher_is_better and not judge.higher_is_better and comet.description == "v1"
    assert comet.report["imported"] == 12
    stored = {
        (s.system.source_ref, s.external_id): s.score
        for s in ExternalScore.objects.filter(metric=comet).select_related("system")
    }
    assert stored[(f"submission:{three[0].pk}", "d1")] == pytest.approx(0.9)
    assert stored[(f"submission:{three[2].pk}", "d5")] == pytest.approx(0.33)
    means = leaderboard_metric_means(leaderboard=board)
    assert means[three[1].pk]["llm_judge"] == pytest.approx(4.0)
    assert means[three[0].pk]["comet"] == pytest.approx(0.9 + 0.015)


def test_a_submission_written_with_a_hash_is_the_same_submission(board, three, owner):
    text = _tsv(three).replace(f"\t{three[0].pk}\t", f"\t#{three[0].pk}\t")
    (comet, _) = _import(board, owner, text)
    assert comet.report["imported"] == 12
    twice = _tsv(three) + f"d1\t#{three[0].pk}\t0.5\t1\n"
    with pytest.raises(MetricScoresRejected) as refused:
        _import(board, owner, twice, metrics=["llm_judge"])
    assert "on line 2" in refused.value.problems[0].message


@pytest.mark.parametrize(
    ("cell", "column", "said"),
    [("ghost", "system", "'ghost' is not the id of a finished submission"),
     ("999999", "system", "'999999' is not the id"),
     ("d4", "item", "'d4' is not a scored item of the dev split"),
     ("t1", "item", "'t1' is not a scored item")],
)  # fmt: skip
def test_another_submission_or_item_refuses_the_file_by_line_and_column(
    board, three, owner, cell, column, said
):
    row = ["d1", str(three[0].pk), "0.5", "1"]
    row[0 if column == "item" else 1] = cell
    text = _tsv(three).replace(f"d1\t{three[0].pk}\t", "\t".join(row[:2]) + "\t", 1)
    with pytest.raises(MetricScoresRejected) as refused:
        _import(board, owner, text)
    (problem,) = refused.value.problems
    assert (problem.line, problem.field) == (2, column) and said in problem.message
    assert not ExternalMetric.objects.exists() and not ExternalScore.objects.exists()


def test_a_submission_of_another_board_is_unknown_here(board, three, poor, owner):
    text = f"item\tsystem\tm\nd1\t{poor[0].pk}\t1\n"
    with pytest.raises(MetricScoresRejected) as refused:
        _import(board, owner, text)
    assert refused.value.problems[0].field == "system"


def test_bad_cells_and_taken_names_refuse_and_write_nothing(board, three, owner):
    text = _tsv(three).replace("\t5\n", "\tnan\n", 1)
    with pytest.raises(MetricScoresRejected) as refused:
        _import(board, owner, text)
    assert [(p.line, p.field) for p in refused.value.problems] == [(2, "llm_judge")]
    _import(board, owner, _tsv(three), metrics=["comet"])
    with pytest.raises(MetricScoresRejected) as refused:
        _import(board, owner, _tsv(three))
    assert refused.value.problems[0].field == "comet" and "the board has" in str(
        refused.value.problems[0]
    )
    assert list(ExternalMetric.objects.values_list("name", flat=True)) == ["comet"]


@pytest.mark.parametrize(
    "data",
    [b"\x00\x01\x02\xff" * 1000, b"", b"\x1f\x8b\x08\x00" + b"\x00" * 100,
     b"PK\x03\x04" + b"\x00" * 100, b'{"item": {"a": [[[[1]]]]}, "system": 1, "m": 1}',
     b"item\tsystem\tm\n" + b"d1\t1\t" + b"9" * 5000 + b"\n"],
)  # fmt: skip
def test_hostile_files_are_refused_without_a_crash(board, owner, data):
    with pytest.raises(MetricScoresRejected):
        leaderboard_metrics_import(leaderboard=board, user=owner, name="../../x.tsv", data=data)
    assert not ExternalMetric.objects.exists()


@pytest.mark.parametrize("who", ["other", "rater"])
def test_nobody_but_the_owner_uploads_through_the_service(board, three, who, request):
    from django.core.exceptions import PermissionDenied

    with pytest.raises(PermissionDenied):
        _import(board, request.getfixturevalue(who), _tsv(three))


def _upload(client, slug, text, **fields):
    file = SimpleUploadedFile("scores.tsv", text.encode())
    return client.post(API.format(slug), {"file": file, **fields}, format="multipart")


def test_the_api_uploads_lists_and_removes(board, three, owner, client_for):
    client = client_for(owner)
    response = _upload(client, "board", _tsv(three), lower_is_better="llm_judge")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert [(m["name"], m["display"], m["higher_is_better"]) for m in body] == [
        ("comet", "external: comet", True),
        ("llm_judge", "external: llm_judge", False),
    ]
    listed = client.get(API.format("board"))
    assert listed.status_code == 200 and [m["name"] for m in listed.json()] == [
        "comet",
        "llm_judge",
    ]
    gone = client.delete(f"{API.format('board')}{body[0]['id']}/")
    assert gone.status_code == 204
    assert list(ExternalMetric.objects.values_list("name", flat=True)) == ["llm_judge"]
    assert not ExternalScore.objects.filter(metric_id=body[0]["id"]).exists()
    assert client.delete(f"{API.format('board')}{body[0]['id']}/").status_code == 404


def test_the_api_refuses_a_bad_file_with_every_problem(board, three, owner, client_for):
    response = _upload(client_for(owner), "board", _tsv(three, extra="d9\tx\t1\t1\n"))
    assert response.status_code == 400
    body = response.json()
    assert "nothing was written" in body["detail"]
    assert {(p["line"], p["field"]) for p in body["problems"]} == {(14, "system"), (14, "item")}
    assert not LeaderboardMetric.objects.exists()


@pytest.mark.parametrize(
    ("who", "code"), [("other", 403), ("rater", 403), ("anonymous", 403), ("staff", 201)]
)
def test_only_the_owner_and_staff_use_the_api(board, three, who, code, client_for, request):
    user = None if who == "anonymous" else request.getfixturevalue(who)
    client = client_for(user)
    assert _upload(client, "board", _tsv(three)).status_code == code
    assert client.get(API.format("board")).status_code == (200 if code == 201 else code)
    metric = ExternalMetric.objects.first()
    if metric is None:
        owned = _import(board, user_of("owner", "researcher"), _tsv(three), metrics=["comet"])
        metric = owned[0]
    deleted = client.delete(f"{API.format('board')}{metric.pk}/")
    assert deleted.status_code == (204 if code == 201 else code)


@pytest.mark.parametrize("who", ["other", "rater", "anonymous"])
def test_a_private_boards_metrics_are_not_found_by_others(
    board, three, owner, who, client_for, request
):
    board.is_public = False
    board.save(update_fields=["is_public"])
    (metric, _) = _import(board, owner, _tsv(three))
    client = client_for(None if who == "anonymous" else request.getfixturevalue(who))
    # Signed in: not found, as for a slug no board has; signed out: the API's 403 to any slug.
    code = 403 if who == "anonymous" else 404
    for slug in ("board", "no-such-board"):
        assert _upload(client, slug, _tsv(three)).status_code == code
        assert client.get(API.format(slug)).status_code == code
        assert client.delete(f"{API.format(slug)}{metric.pk}/").status_code == code


def test_upload_to_a_hidden_test_board_tells_others_nothing(hidden, poor, owner, other, client_for):
    probe = f"item\tsystem\tm\nt1\t{poor[0].pk}\t1\nt2\t{poor[0].pk}\t1\nzz\t{poor[0].pk}\t1\n"
    refused = _upload(client_for(other), "hidden", probe)
    assert refused.status_code == 403
    assert "t1" not in refused.content.decode() and "zz" not in refused.content.decode()
    answer = _upload(client_for(owner), "hidden", probe)
    assert answer.status_code == 400  # the owner is told which id is not an item
    assert [p["field"] for p in answer.json()["problems"]] == ["item"]
    ok = _upload(client_for(owner), "hidden", probe.replace(f"zz\t{poor[0].pk}\t1\n", ""))
    assert ok.status_code == 201


def test_the_schema_documents_the_routes():
    schema = api_schema()
    upload = schema["paths"]["/api/v1/leaderboards/{slug}/metrics/"]["post"]
    assert {"201", "400", "403", "404"} <= set(upload["responses"])
    assert "multipart/form-data" in upload["requestBody"]["content"]
    assert "submission's id" in upload["description"]
    removal = schema["paths"]["/api/v1/leaderboards/{slug}/metrics/{metric_id}/"]["delete"]
    assert {"204", "403", "404"} <= set(removal["responses"])


PAGE = "/leaderboards/board/settings/"


def test_the_settings_page_uploads_lists_and_removes(board, three, owner, client_for):
    client = client_for(owner)
    page = client.get(PAGE)
    assert page.status_code == 200
    assert b'id="external-metric-form"' in page.content and b'id="submission-ids"' in page.content
    file = SimpleUploadedFile("s.tsv", _tsv(three).encode())
    sent = client.post(PAGE + "metrics/", {"file": file, "metrics": "comet"})
    assert sent.status_code == 302 and sent["Location"] == PAGE
    listed = client.get(PAGE).content.decode()
    assert "external: comet" in listed
    bad = SimpleUploadedFile("s.tsv", _tsv(three, extra="d1\tnope\t1\t1\n").encode())
    refused = client.post(PAGE + "metrics/", {"file": bad, "metrics": "llm_judge"})
    assert refused.status_code == 400
    assert "s.tsv, line 14, system" in refused.content.decode()
    metric = ExternalMetric.objects.get(name="comet")
    assert client.post(f"{PAGE}metrics/{metric.pk}/delete/").status_code == 302
    assert not ExternalMetric.objects.exists()


@pytest.mark.parametrize(("who", "code"), [("other", 403), ("rater", 403), ("anonymous", 302)])
def test_only_the_owner_uses_the_page(board, three, owner, who, code, client_for, request):
    (metric, _) = _import(board, owner, _tsv(three))
    client = client_for(None if who == "anonymous" else request.getfixturevalue(who))
    file = SimpleUploadedFile("s.tsv", _tsv(three).encode())
    assert client.post(PAGE + "metrics/", {"file": file}).status_code == code
    assert client.post(f"{PAGE}metrics/{metric.pk}/delete/").status_code == code
    assert ExternalMetric.objects.count() == 2


def test_the_command_uploads_and_refuses_by_line(board, three, tmp_path):
    path = tmp_path / "scores.tsv"
    path.write_text(_tsv(three))
    out = io.StringIO()
    call_command("import_leaderboard_metrics", "board", str(path), "--metric", "comet", stdout=out)
    assert "external: comet: 12 responses" in out.getvalue()
    path.write_text(_tsv(three, extra="d1\tx\t1\t1\n"))
    with pytest.raises(CommandError) as refused:
        call_command("import_leaderboard_metrics", "board", str(path), "--metric", "llm_judge")
    assert "scores.tsv, line 14, system" in str(refused.value)
    with pytest.raises(CommandError, match="No leaderboard"):
        call_command("import_leaderboard_metrics", "nope", str(path))
    assert json.dumps(list(ExternalMetric.objects.values_list("name", flat=True))) == '["comet"]'


def test_the_board_shows_each_submissions_mean_labelled_as_the_owners(
    board, three, owner, client_for
):
    _import(board, owner, _tsv(three), metrics=["comet"])
    page = client_for(None).get("/leaderboards/board/").content.decode()
    assert "external: comet" in page and "(uploaded by the owner)" in page
    assert page.count('<td class="uploaded-metric"') == 2  # a dev board: each team's latest
    assert ">0.915<" in page and ">0.315<" in page  # exact's mean and noise's


def test_a_board_without_uploads_has_no_such_column(board, three, client_for):
    assert "uploaded-metric" not in client_for(None).get("/leaderboards/board/").content.decode()


def test_a_file_over_the_import_limit_is_refused_unread(board, three, owner, client_for, settings):
    settings.IMPORT_MAX_BYTES = 100
    client = client_for(owner)
    response = _upload(client, "board", _tsv(three))
    assert response.status_code == 400 and "larger than" in response.json()["detail"]
    file = SimpleUploadedFile("s.tsv", _tsv(three).encode())
    page = client.post(PAGE + "metrics/", {"file": file})
    assert page.status_code == 400 and not ExternalMetric.objects.exists()


def test_a_path_in_the_files_name_is_only_a_label(board, three, owner, client_for):
    file = SimpleUploadedFile("../../etc/scores.tsv", _tsv(three, extra="d1\tx\t1\t1\n").encode())
    response = client_for(owner).post(API.format("board"), {"file": file}, format="multipart")
    assert response.status_code == 400
    assert {p["file"] for p in response.json()["problems"]} == {"scores.tsv"}


def test_the_study_form_offers_the_boards_metrics_to_its_owner_only(board, three, owner, other):
    from scoring.study.selectors import study_names

    _import(board, owner, _tsv(three), metrics=["comet"])
    assert "comet" in study_names(user=owner)["external"]
    assert "comet" not in study_names(user=other)["external"]


def test_deleting_a_board_in_the_admin_removes_its_uploaded_metrics(owner, staff, client_for):
    release = release_of(owner, slug="gone")
    doomed = leaderboard_of(owner, release=release, slug="doomed")
    entry = scored_now(doomed, owner, PERFECT, method="exact")
    text = "item\tsystem\tm\n" + "".join(f"{i}\t{entry.pk}\t1\n" for i in ITEMS)
    _import(doomed, owner, text)
    assert ExternalMetric.objects.count() == 1
    admin = client_for(staff)
    url = f"/admin/leaderboards/leaderboard/{doomed.pk}/delete/"
    assert admin.post(url, {"post": "yes"}).status_code == 302
    assert not ExternalMetric.objects.exists() and not ExternalScore.objects.exists()


def test_a_file_of_unknown_ids_is_refused_with_the_first_problems_quoted_short(board, three, owner):
    rows = "".join(f"x{k}{'y' * 300}\t{three[0].pk}\t1\n" for k in range(1000))
    with pytest.raises(MetricScoresRejected) as refused:
        _import(board, owner, "item\tsystem\tm\n" + rows)
    problems = refused.value.problems
    assert len(problems) == 200 and problems[0].line == 2 and problems[-1].line == 201
    assert all(p.field == "item" and len(p.message) < 100 for p in problems)
