"""Submissions as evaluated systems: a leaderboard's finished submissions copied into the
dataset's systems, so that people can judge them and a study can use them."""

from __future__ import annotations

from annotate.judgments.models import EvalSystem
from annotate.judgments.services.systems import eval_system_set_outputs
from scoring.leaderboards.models import Submission
from scoring.leaderboards.selectors.leaderboards import leaderboard_item_ids
from scoring.leaderboards.selectors.stored import submission_hypotheses


def eval_systems_from_submissions(*, submissions: list[Submission]) -> list[EvalSystem]:
    """Copy finished submissions' outputs into evaluated systems of the release's dataset, so
    people can judge them and a study can use them (annotate never reads scoring's files)."""
    systems = []
    for submission in submissions:
        board = submission.leaderboard
        ids = leaderboard_item_ids(leaderboard=board)
        hyps = submission_hypotheses(submission, ids)
        systems.append(
            eval_system_set_outputs(
                dataset=board.release.dataset,
                name=f"{submission.team.name}: {submission.method}",
                split=board.split,
                outputs=zip(ids, hyps, strict=True),
                source="submission",
                source_ref=f"submission:{submission.pk}",
            )
        )
    return systems
