"""Submissions as evaluated systems: a leaderboard's finished submissions copied into the
dataset's systems, so that people can judge them and a study can use them."""

from __future__ import annotations

from annotate.datasets.models import Dataset
from annotate.judgments.models import EvalSystem
from annotate.judgments.services.systems import eval_system_set_outputs
from scoring.leaderboards.models import Submission
from scoring.leaderboards.selectors.leaderboards import leaderboard_item_ids
from scoring.leaderboards.selectors.stored import submission_hypotheses


def _system_name(dataset: Dataset, submission: Submission, source_ref: str) -> str:
    """ "team: method", unless a system of that name holds something else (an imported system,
    another submission of the same method): copying would replace its outputs under the
    ratings already given to them, so this one gets its submission's number too."""
    name = f"{submission.team.name}: {submission.method}"[:180]
    holder = EvalSystem.objects.filter(dataset=dataset, name=name).first()
    if holder is None or holder.source_ref == source_ref:
        return name
    return f"{name} (submission {submission.pk})"


def eval_systems_from_submissions(*, submissions: list[Submission]) -> list[EvalSystem]:
    """Copy finished submissions' outputs into evaluated systems of the release's dataset, so
    people can judge them and a study can use them (annotate never reads scoring's files).
    Copying a submission again replaces its system's outputs (the same ones)."""
    systems = []
    for submission in submissions:
        board = submission.leaderboard
        dataset = board.release.dataset
        ids = leaderboard_item_ids(leaderboard=board)
        hyps = submission_hypotheses(submission, ids)
        source_ref = f"submission:{submission.pk}"
        systems.append(
            eval_system_set_outputs(
                dataset=dataset,
                name=_system_name(dataset, submission, source_ref),
                split=board.split,
                outputs=zip(ids, hyps, strict=True),
                source="submission",
                source_ref=source_ref,
            )
        )
    return systems
