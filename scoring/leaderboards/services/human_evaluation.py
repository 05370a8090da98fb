"""From a leaderboard to people: chosen submissions become evaluated systems and an output
rating campaign on them, in one step (its ratings then feed a correlation study through the
study's `output_campaign`).

Hidden test splits: the campaign shows raters each item's context, message and the systems'
outputs, never a reference, and only its owner hands out the link, so outputs on a hidden test
split may be rated. What is refused is an output that *is* a hidden reference (case and spacing
aside): rating it would show that reference to the raters.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from annotate.datasets.selectors import dataset_split_get
from annotate.rating.models import Campaign, Mode, Subject
from annotate.rating.services.campaigns import campaign_create
from scoring.leaderboards.models import Leaderboard, Submission
from scoring.leaderboards.selectors.human_evaluation import hidden_reference_echoes
from scoring.leaderboards.selectors.leaderboards import leaderboard_can_manage
from scoring.leaderboards.services.eval_systems import eval_systems_from_submissions

NAMED_ITEMS = 3  # item ids named per refused submission; the rest are counted


def _refuse_hidden_echoes(leaderboard: Leaderboard, submissions: list[Submission]) -> None:
    echoes = hidden_reference_echoes(leaderboard=leaderboard, submissions=submissions)
    if not echoes:
        return
    reasons = []
    for pk, items in echoes.items():
        named = ", ".join(items[:NAMED_ITEMS]) + (" …" if len(items) > NAMED_ITEMS else "")
        reasons.append(
            f"Submission {pk}'s outputs are hidden {leaderboard.split} references on "
            f"{len(items)} items ({named}): raters would see them. Leave it out, or reveal "
            f"the {leaderboard.split} split first."
        )
    raise ValidationError({"submissions": reasons})


def _split(leaderboard: Leaderboard):
    try:
        return dataset_split_get(dataset=leaderboard.release.dataset, name=leaderboard.split)
    except ValidationError:
        raise ValidationError(
            f"The dataset has no {leaderboard.split} items left to show with the outputs."
        ) from None


@transaction.atomic
def human_evaluation_create(
    *,
    leaderboard: Leaderboard,
    user: User,
    submissions: list[Submission],
    mode: str = Mode.LIKERT,
    ratings_per_unit: int = 3,
    name: str = "",
    **settings: Any,
) -> Campaign:
    """An output campaign (Likert, or pairwise over every pair) on finished `submissions` of
    the board, copied into evaluated systems; ready for raters (slots made, status active).
    `settings`: more of the campaign's fields (control_rate, QC thresholds, instructions)."""
    if not leaderboard_can_manage(user=user, leaderboard=leaderboard):
        raise PermissionDenied("Only the leaderboard's owner starts a human evaluation of it.")
    if mode == Mode.PAIRWISE and len(submissions) < 2:
        raise ValidationError({"submissions": "A pairwise evaluation needs two or more."})
    _refuse_hidden_echoes(leaderboard, submissions)
    split = _split(leaderboard)
    systems = eval_systems_from_submissions(submissions=submissions)
    try:
        return campaign_create(
            owner=user,
            dataset=leaderboard.release.dataset,
            name=(name or f"Human evaluation: {leaderboard.name}")[:200],
            subject=Subject.OUTPUTS,
            mode=mode,
            systems=systems,
            split=split,
            ratings_per_unit=ratings_per_unit,
            **settings,
        )
    except ValidationError as exc:
        # The caller chose submissions, not systems: name the field they gave.
        if hasattr(exc, "error_dict") and "systems" in exc.error_dict:
            raise ValidationError({"submissions": exc.message_dict["systems"]}) from None
        raise
