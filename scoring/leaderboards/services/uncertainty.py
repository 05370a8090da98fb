"""A score's bootstrap replicates, kept so that a board can say how stable its ranking is.

Every score keeps the scores of the same 1,000 resampled corpora as its item interval (the seed
and item draws are `bootstrap_ci`'s). A weighted metric's score on a release with individual
ratings also gets its estimate corrected for the raters' noise and the interval over items and
raters around it (the library's `rater_estimate`, from its weight profile and the board's rater
model, `board_rater_draws`); its replicates are that interval's. Where the model cannot be
fitted (too few references rated twice, z-normalised weights) the score says why and keeps the
item bootstrap's replicates. The draws depend only on the board (its items and ratings),
never on the submission, so every entry's replicates are paired with every other's and a view of
the board stacks them to get each entry's rank distribution — nothing is recomputed when another
score lands.

They are computed by a run of their own (`REPLICATES_KIND`), started in the transaction that
ends a submission's scoring: the scores land as fast as ever, the interval with raters and the
rank grid a little later. Its writes are fenced like every run's, so a retried or cancelled
attempt writes nothing twice.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.contrib.auth.models import User

from annotate.rating.services.adaptive import dataset_priorities_follow
from core.runs.context import RunContext
from core.runs.engine import run_create, run_succeed
from core.runs.models import Run, RunState
from scoring.leaderboards.models import Score, Submission
from scoring.leaderboards.selectors.leaderboards import leaderboard_metric
from scoring.leaderboards.selectors.raters import board_rater_draws, board_rating_pools
from scoring.leaderboards.selectors.stored import load_matrix, load_profile
from scoring.leaderboards.services.references import Chunk, save_matrix
from scoring.metrics import BoardDraws, Metric, bootstrap_replicates, rater_estimate

REPLICATES_KIND = "replicates"
RESAMPLES = 1000  # the item interval's: the replicates are that bootstrap's own draws


@dataclass(frozen=True)
class Replicates:
    """The replicate scores, their 95% interval when they include the raters, and what the
    score's `extras["rater"]` says of them (the corrected estimate, or why there is none)."""

    scores: np.ndarray
    rater_interval: tuple[float, float] | None
    rater: dict | None = None


def score_replicates(
    metric: Metric, chunk: Chunk, draws: BoardDraws | str | None, n_samples: int = RESAMPLES
) -> Replicates:
    """The corrected estimate's replicates over items and raters for a weighted metric on a
    board with a rater model; the item bootstrap's otherwise (their interval is the score's
    own), with the reason when the release has ratings but no model."""
    if chunk.profile is None or not isinstance(draws, BoardDraws):
        items = bootstrap_replicates(metric, chunk.stats, n_samples=n_samples)
        if chunk.profile is None or draws is None:
            return Replicates(items, None)
        return Replicates(items, None, {"unavailable": draws})
    found = rater_estimate(metric, chunk.profile, draws, n_samples=n_samples)
    rater = {
        "estimate": found.estimate,
        "raters_only": list(found.rater_bounds),
        "model": draws.model.summary(),
    }
    return Replicates(found.scores, found.bounds, rater)


def replicates_scope(submission_id: int) -> str:
    return f"submission:{submission_id}"


def replicates_start(*, submission: Submission, owner: User) -> Run:
    """Queue the run that computes the submission's replicates (sent once the caller's
    transaction commits)."""
    return run_create(
        kind=REPLICATES_KIND,
        owner=owner,
        params={"submission_id": submission.pk},
        scope=replicates_scope(submission.pk),
        message="Waiting for a worker",
    )


def _scores(submission: Submission) -> list[Score]:
    latest: dict[str, Score] = {}
    for score in submission.scores.filter(stats_file__gt="").order_by("created_at", "pk"):
        latest[score.metric] = score
    return [latest[m] for m in submission.leaderboard.metrics if m in latest]


def replicates_run(run: RunContext) -> object:
    """The run's body: each of the submission's latest scores gets its replicates file and, for
    a weighted metric on a release with ratings, its interval with rater uncertainty."""
    submission = (
        Submission.objects.select_related("leaderboard__release")
        .filter(pk=run.params["submission_id"])
        .first()
    )
    scores = _scores(submission) if submission is not None else []
    if submission is None or not scores:
        run_succeed(run, {"scores": 0})  # cancelled or deleted meanwhile: nothing to do
        return None
    board = submission.leaderboard
    with_ratings = board_rating_pools(leaderboard=board) is not None
    run.progress(0, len(scores), "Bootstrap replicates")
    found: dict[int, tuple[str, Replicates]] = {}
    for done, score in enumerate(scores, start=1):
        with run.stage(score.metric):
            chunk = Chunk(
                load_matrix(score.stats_file),
                load_profile(score.profile_file) if score.profile_file else None,
            )
            draws = None
            if with_ratings and chunk.profile is not None:
                draws = board_rater_draws(leaderboard=board, ref_ptr=chunk.profile.ref_ptr)
            replicates = score_replicates(leaderboard_metric(board, score.metric), chunk, draws)
        # The report (with the stage's timing) is also the check that stops a superseded or
        # cancelled attempt before it writes its file.
        run.progress(done)
        name = save_matrix(
            f"stats/{submission.pk}/{score.metric}.replicates.npy", replicates.scores
        )
        found[score.pk] = (name, replicates)

    def write() -> None:
        stored = Score.objects.in_bulk(list(found))  # read again under the run's lock
        for score_pk, (name, replicates) in found.items():
            score = stored[score_pk]
            score.replicates_file = name
            score.rater_ci_low, score.rater_ci_high = replicates.rater_interval or (None, None)
            extras = {k: v for k, v in score.extras.items() if k not in ("rater", "rater_shift")}
            score.extras = {**extras, "rater": replicates.rater} if replicates.rater else extras
        fields = ["replicates_file", "rater_ci_low", "rater_ci_high", "extras"]
        Score.objects.bulk_update(stored.values(), fields)  # one UPDATE for every score

    run_succeed(run, {"scores": len(found)}, write=write)
    return None


def replicates_run_ended(run: Run) -> None:
    """The run's end hook: the board's rank grid changed, and so may the close pairs that
    adaptive campaigns on its dataset learn from."""
    if run.state != RunState.SUCCEEDED:
        return
    submission = (
        Submission.objects.select_related("leaderboard__release")
        .filter(pk=run.params.get("submission_id"))
        .first()
    )
    if submission is not None:
        dataset_priorities_follow(dataset_id=submission.leaderboard.release.dataset_id)
