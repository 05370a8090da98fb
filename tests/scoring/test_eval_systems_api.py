"""Copying a leaderboard's finished submissions into evaluated systems of its dataset."""

import pytest

from annotate.judgments.models import EvalSystem, SystemOutput
from scoring.leaderboards.models import Submission
from tests.scoring.conftest import GOOD, PERFECT

pytestmark = pytest.mark.django_db
URL = "/api/v1/leaderboards/board/eval-systems/"


def test_the_owner_copies_finished_submissions_with_their_outputs(
    make_leaderboard, scored, owner, other, client_for
):
    board = make_leaderboard()
    perfect = scored(board, other, PERFECT, method="exact")
    good = scored(board, owner, GOOD, method="close")
    response = client_for(owner).post(URL, {"submissions": [perfect.pk, good.pk]}, format="json")
    assert response.status_code == 201, response.json()
    assert [(s["name"], s["source"], s["outputs"]) for s in response.json()] == [
        (f"{perfect.team.name}: exact", "submission", 4),
        (f"{good.team.name}: close", "submission", 4),
    ]
    system = EvalSystem.objects.get(
        dataset=board.release.dataset, source_ref=f"submission:{perfect.pk}"
    )
    outputs = SystemOutput.objects.filter(system=system, split="dev").order_by("external_id")
    assert [(o.external_id, o.text) for o in outputs] == list(
        zip(["d1", "d2", "d3", "d5"], PERFECT, strict=True)
    )
    # Copying again replaces the outputs, it does not add a second system.
    assert (
        client_for(owner).post(URL, {"submissions": [perfect.pk]}, format="json").status_code == 201
    )
    assert EvalSystem.objects.filter(dataset=board.release.dataset).count() == 2
    assert SystemOutput.objects.filter(system=system).count() == 4


def test_only_finished_submissions_of_this_board(
    make_leaderboard, scored, owner, client_for, make_release
):
    board = make_leaderboard()
    finished = scored(board, owner, PERFECT)
    elsewhere = scored(
        make_leaderboard(release=make_release(slug="other-data"), slug="second"), owner, PERFECT
    )
    Submission.objects.filter(pk=finished.pk).update(status="failed")
    for ids in ([finished.pk], [elsewhere.pk], [987654]):
        response = client_for(owner).post(URL, {"submissions": ids}, format="json")
        assert response.status_code == 400 and str(ids[0]) in str(response.json())
    assert not EvalSystem.objects.exists()


@pytest.mark.parametrize("who, code", [("other", 403), ("rater", 403), ("anonymous", 403)])
def test_others_cannot_copy(make_leaderboard, scored, owner, user_named, client_for, who, code):
    submission = scored(make_leaderboard(), owner, PERFECT)
    user = user_named(who)
    response = client_for(user).post(URL, {"submissions": [submission.pk]}, format="json")
    assert response.status_code == code
    assert not EvalSystem.objects.exists()
