"""Rater-aware intervals and rank stability on a board: a weighted metric's score keeps its
weight profile, its estimate corrected for the raters' noise and that estimate's replicates over
items and raters, computed when the score lands from what scoring stored; a board view stacks
its entries' replicates. Where the rater model cannot be fitted, the score says why."""

from io import StringIO

import numpy as np
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

import scoring.metrics as library  # the oracle: the Django-free metric library
from core.runs import canvas
from core.runs.models import Run
from scoring.leaderboards.models import Score, Team
from scoring.leaderboards.selectors.leaderboard_table import leaderboard_table
from scoring.leaderboards.selectors.raters import board_rating_pools
from scoring.leaderboards.selectors.stored import load_matrix, load_profile
from scoring.leaderboards.services import uncertainty
from tests.conftest import RATED_RELEASE_ITEMS, WELL_RATED_RELEASE_ITEMS
from tests.runs_kit import execute, execute_replicates, upload
from tests.scoring.conftest import GOOD, NONSENSE, PERFECT
from tests.scoring.test_scoring_chord import RecordedChords

pytestmark = pytest.mark.django_db


@pytest.fixture
def rated_board(make_leaderboard, make_release):
    return make_leaderboard(
        release=make_release(items=WELL_RATED_RELEASE_ITEMS), companion_metrics=["bleu", "dnist"]
    )


def _scores(submission):
    return {s.metric: s for s in Score.objects.filter(submission=submission)}


@pytest.fixture
def entry(other, scored):
    """`entry(board, hyps, name, **fields)`: a finished submission of a team of its own (a dev
    board shows each team's latest)."""

    def make(board, hyps, name, **fields):
        team = Team.objects.create(name=f"team-{name}")
        team.members.add(other)
        return scored(board, other, hyps, method=name, team_name=team.name, **fields)

    return make


def test_a_weighted_score_keeps_its_profile_corrected_estimate_and_rater_interval(
    rated_board, other, scored
):
    submission = scored(rated_board, other, GOOD)
    scores = _scores(submission)
    dbleu = scores["dbleu"]
    stats = load_matrix(dbleu.stats_file)
    profile = load_profile(dbleu.profile_file)
    pools = board_rating_pools(leaderboard=rated_board)
    # The profile at the release's weights gives back the stored statistics, bit for bit.
    assert np.array_equal(profile.rows(pools.base_weights), stats)
    metric = library.get_metric("dbleu")
    draws = library.board_draws(pools, profile.ref_ptr)
    expected = library.rater_estimate(metric, profile, draws)
    assert np.array_equal(load_matrix(dbleu.replicates_file), expected.scores)
    assert (dbleu.rater_ci_low, dbleu.rater_ci_high) == expected.bounds
    assert dbleu.corrected_score == expected.estimate and dbleu.rater_unavailable == ""
    assert dbleu.rater["raters_only"] == list(expected.rater_bounds)
    assert dbleu.rater["model"] == draws.model.summary()
    assert dbleu.ratings_per_reference == draws.model.summary()["ratings_per_reference"]
    assert pools.raters is None and dbleu.raters == 0  # the release does not say who rated
    assert dbleu.score == pytest.approx(expected.released, abs=1e-9)  # the paper's, unchanged
    # The interval surrounds the corrected score and is wider than the raters' alone (the
    # items' spread at the simulated true weights adds to theirs).
    assert dbleu.rater_ci_low <= dbleu.corrected_score <= dbleu.rater_ci_high
    raters_low, raters_high = dbleu.rater["raters_only"]
    assert dbleu.rater_ci_high - dbleu.rater_ci_low > raters_high - raters_low
    # ΔNIST is weighted too; BLEU is not: its replicates are the item bootstrap's.
    assert scores["dnist"].rater_ci_low is not None and scores["dnist"].corrected_score
    bleu = scores["bleu"]
    assert bleu.rater_ci_low is None and bleu.profile_file == "" and bleu.rater == {}
    bleu_reps = load_matrix(bleu.replicates_file)
    interval = library.bootstrap_ci(library.get_metric("bleu"), load_matrix(bleu.stats_file))
    assert library.percentile_bounds(bleu_reps) == pytest.approx(
        (interval.low, interval.high), abs=1e-9
    )


def test_a_board_with_too_few_references_rated_twice_says_why_it_has_no_rater_interval(
    make_leaderboard, make_release, other, scored, client_for
):
    board = make_leaderboard(release=make_release(items=RATED_RELEASE_ITEMS))
    dbleu = _scores(scored(board, other, GOOD))["dbleu"]
    assert dbleu.rater_ci_low is None and dbleu.corrected_score is None
    assert "rated more than once (at least 20 are needed" in dbleu.rater_unavailable
    # Its replicates are the item bootstrap's: no number that claims the raters' noise.
    metric = library.get_metric("dbleu")
    assert np.array_equal(
        load_matrix(dbleu.replicates_file),
        library.bootstrap_replicates(metric, load_matrix(dbleu.stats_file)),
    )
    page = client_for(None).get(reverse("leaderboard-detail", args=[board.slug]))
    text = page.content.decode()
    assert "The rater-aware interval is <strong>unavailable</strong>" in text
    assert f'title="{dbleu.rater_unavailable}">unavailable</span>' in text
    row = client_for(None).get(f"/api/v1/leaderboards/{board.slug}/").json()["rows"][0]
    assert row["corrected_score"] is None and row["rater_unavailable"] == dbleu.rater_unavailable


def test_z_normalised_weights_have_no_rater_interval(make_release, make_leaderboard, other, scored):
    release = make_release(items=WELL_RATED_RELEASE_ITEMS, weight_variant="z")
    dbleu = _scores(scored(make_leaderboard(release=release), other, GOOD))["dbleu"]
    assert dbleu.rater_ci_low is None and "z-normalised" in dbleu.rater_unavailable


def test_without_individual_ratings_the_weights_are_fixed(make_leaderboard, other, scored):
    board = make_leaderboard()  # a release whose references carry weights but no ratings
    dbleu = _scores(scored(board, other, GOOD))["dbleu"]
    assert board_rating_pools(leaderboard=board) is None
    assert dbleu.rater_ci_low is None and dbleu.profile_file  # the profile is kept all the same
    metric = library.get_metric("dbleu")
    stats = load_matrix(dbleu.stats_file)
    assert np.array_equal(
        load_matrix(dbleu.replicates_file), library.bootstrap_replicates(metric, stats)
    )


def test_the_chord_stores_what_one_piece_does(
    rated_board, other, scored, monkeypatch, settings, django_capture_on_commit_callbacks
):
    whole = _scores(scored(rated_board, other, GOOD))["dbleu"]
    settings.SCORING_CHUNK_ITEMS = 1  # four items: four chunks a metric, in a chord
    chords = RecordedChords()
    monkeypatch.setattr(canvas, "chord", chords)
    with django_capture_on_commit_callbacks(execute=False):
        submission = upload(rated_board, other, GOOD, method="again")
    assert execute(submission.run_id).state == "running"  # deferred to its chord
    assert chords.run_next() == []
    assert execute_replicates(submission).state == "succeeded"  # queued when scoring ended
    parts = _scores(submission)["dbleu"]
    assert np.array_equal(load_matrix(parts.replicates_file), load_matrix(whole.replicates_file))
    weights = board_rating_pools(leaderboard=rated_board).base_weights
    assert np.array_equal(
        load_profile(parts.profile_file).rows(weights),
        load_profile(whole.profile_file).rows(weights),
    )
    assert (parts.rater_ci_low, parts.rater_ci_high) == (whole.rater_ci_low, whole.rater_ci_high)


def test_the_board_shows_each_entrys_rank_distribution(rated_board, owner, entry):
    subs = [
        entry(rated_board, hyps, name)
        for name, hyps in (("perfect", PERFECT), ("good", GOOD), ("nonsense", NONSENSE))
    ]
    table = leaderboard_table(leaderboard=rated_board, user=owner)
    assert [row.submission.method for row in table.rows] == ["perfect", "good", "nonsense"]
    stacked = np.stack([load_matrix(row.primary.replicates_file) for row in table.rows])
    expected = library.rank_stability(stacked)
    assert table.has_stability and table.stability_with_raters
    for k, row in enumerate(table.rows):
        assert row.rank_probs == pytest.approx(list(expected.rank_probs[k]))
        assert sum(row.rank_probs) == pytest.approx(1.0)
    assert [row.order_holds for row in table.rows] == pytest.approx(
        [*expected.neighbour_order, None]
    )
    assert table.rows[0].order_holds > 0.5
    assert len(subs) == 3


def test_the_api_and_the_exports_carry_both_intervals_and_the_ranks(rated_board, entry, client_for):
    for name, hyps in (("perfect", PERFECT), ("good", GOOD)):
        entry(rated_board, hyps, name)
    body = client_for(None).get(f"/api/v1/leaderboards/{rated_board.slug}/").json()
    assert body["rank_stability"]["available"] and body["rank_stability"]["with_raters"]
    first, second = body["rows"]
    assert first["rater_ci_low"] <= first["corrected_score"] <= first["rater_ci_high"]
    assert first["scores"]["dbleu"]["rater_ci_low"] == first["rater_ci_low"]
    assert first["scores"]["dbleu"]["corrected_score"] == first["corrected_score"]
    low, high = first["scores"]["dbleu"]["raters_only_ci"]
    assert low <= first["corrected_score"] <= high and first["rater_unavailable"] == ""
    assert first["scores"]["bleu"]["rater_ci_low"] is None
    assert sum(first["rank_probabilities"]) == pytest.approx(1.0)
    assert first["order_holds_with_next"] is not None and second["order_holds_with_next"] is None
    csv = client_for(None).get(reverse("leaderboard-export", args=[rated_board.slug, "csv"]))
    header = csv.content.decode().splitlines()[0].split(",")
    assert {"dbleu_rater_ci_low", "expected_rank", "order_holds_with_next"} <= set(header)
    assert {"dbleu_corrected_score", "dbleu_rater_unavailable"} <= set(header)


def test_the_page_shows_both_intervals_and_the_rank_grid(rated_board, entry, client_for):
    for name, hyps in (("perfect", PERFECT), ("good", GOOD)):
        entry(rated_board, hyps, name)
    page = client_for(None).get(reverse("leaderboard-detail", args=[rated_board.slug]))
    text = page.content.decode()
    assert '95% CI <span class="small muted">(items + raters)</span>' in text
    assert "How stable is this ranking?" in text and 'id="rank-table"' in text
    assert "P(rank 2)" in text and "resample the items <em>and</em>" in text
    assert "(released weights)" in text and 'id="rater-note"' in text
    note = text[text.index('id="rater-note"') :]
    assert "infinitely many raters" in note, note[:3000]
    assert "measured on 33 references" in note
    assert "does not say who gave each rating" in note


def test_a_release_that_says_who_rated_gives_the_model_its_raters(
    make_leaderboard, make_release, entry, client_for
):
    """Each reference's t-th rating by rater t + 1: five raters, whose offsets the model
    measures; the page and the API say how many and how much they differ."""
    board = make_leaderboard(release=make_release(items=WELL_RATED_RELEASE_ITEMS, with_raters=True))
    pools = board_rating_pools(leaderboard=board)
    assert pools.raters is not None and len(pools.raters) == len(pools.values)
    assert set(pools.raters.tolist()) == {1, 2, 3, 4, 5}
    submission = entry(board, GOOD, "good")
    dbleu = _scores(submission)["dbleu"]
    model = library.board_draws(pools, load_profile(dbleu.profile_file).ref_ptr).model
    assert dbleu.raters == model.raters == 5
    assert dbleu.rater_offset_sd == round(model.rater_sd, 4)
    row = client_for(None).get(f"/api/v1/leaderboards/{board.slug}/").json()["rows"][0]
    assert row["scores"]["dbleu"]["raters"] == 5
    assert row["scores"]["dbleu"]["rater_offset_sd"] == dbleu.rater_offset_sd
    note = client_for(None).get(reverse("leaderboard-detail", args=[board.slug])).content.decode()
    assert "They come from 5 raters, whose own offsets" in note


def test_a_view_ranks_only_the_entries_it_may_see(rated_board, owner, entry, client_for):
    entry(rated_board, PERFECT, "public-one")
    entry(rated_board, GOOD, "private-one", is_public=False)
    entry(rated_board, NONSENSE, "public-two")
    owner_rows = leaderboard_table(leaderboard=rated_board, user=owner).rows
    anonymous = client_for(None).get(f"/api/v1/leaderboards/{rated_board.slug}/").json()["rows"]
    assert len(owner_rows[0].rank_probs) == 3
    assert [len(row["rank_probabilities"]) for row in anonymous] == [2, 2]
    assert "private-one" not in str(anonymous)


def test_scores_land_first_and_their_replicates_follow_in_a_run_of_their_own(
    rated_board, other, client_for, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False):
        submission = upload(rated_board, other, GOOD, method="first")
    execute(submission.run_id)
    dbleu = _scores(submission)["dbleu"]
    assert dbleu.score and dbleu.ci_low is not None  # on the board at once
    assert dbleu.replicates_file == "" and dbleu.rater_ci_low is None
    follow = Run.objects.get(kind="replicates", scope=f"submission:{submission.pk}")
    assert follow.state == "queued" and follow.owner == other
    page = client_for(None).get(reverse("leaderboard-detail", args=[rated_board.slug]))
    assert "are being computed" in page.content.decode()
    assert execute_replicates(submission).state == "succeeded"
    dbleu.refresh_from_db()
    assert dbleu.replicates_file and dbleu.rater_ci_low is not None


def test_a_failed_replicates_run_leaves_the_scores_and_the_command_queues_it_again(
    rated_board, other, monkeypatch, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False):
        submission = upload(rated_board, other, GOOD, method="first")
        execute(submission.run_id)

        def broken(*args, **kwargs):
            raise OSError("the disk under the profile is gone")

        monkeypatch.setattr(uncertainty, "score_replicates", broken)
        for _ in range(3):  # retried with the next attempt, up to the kind's limit
            run = execute_replicates(submission)
    assert (run.state, run.attempt) == ("failed", 3)
    scores = _scores(submission)
    assert all(s.replicates_file == "" for s in scores.values())
    assert submission.scores.count() == 3  # the scores themselves stay
    monkeypatch.undo()
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=False):
        call_command("replicates", rated_board.slug, stdout=out)
    assert out.getvalue().strip() == "Queued the replicates of 1 submission(s)."
    assert execute_replicates(submission).state == "succeeded"
    assert all(s.replicates_file for s in _scores(submission).values())
    with django_capture_on_commit_callbacks(execute=False):
        call_command("replicates", rated_board.slug, stdout=out)
    assert out.getvalue().strip().endswith("Queued the replicates of 0 submission(s).")
    with pytest.raises(CommandError, match="No leaderboard 'nope'"):
        call_command("replicates", "nope")


def test_the_replicates_of_a_submission_gone_meanwhile_are_nothing_to_do(
    rated_board, other, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False):
        submission = upload(rated_board, other, GOOD, method="first")
    execute(submission.run_id)
    follow = Run.objects.get(kind="replicates", scope=f"submission:{submission.pk}")
    Score.objects.filter(submission=submission).delete()
    assert execute(follow).result == {"scores": 0}
