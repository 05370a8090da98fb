"""Reads for a human evaluation of a leaderboard's submissions: which outputs would show
people a hidden reference."""

from __future__ import annotations

from annotate.releases.models import ReleaseReference
from annotate.releases.visibility import release_hidden_splits
from scoring.leaderboards.models import Leaderboard, Submission
from scoring.leaderboards.selectors.leaderboards import leaderboard_item_ids
from scoring.leaderboards.selectors.stored import submission_hypotheses


def _normal(text: str) -> str:
    return " ".join(text.lower().split())


def hidden_reference_echoes(
    *, leaderboard: Leaderboard, submissions: list[Submission]
) -> dict[int, list[str]]:
    """Submission id → ids of the items where its output is one of the item's hidden references
    (case and spacing aside); empty when the board's split is published.

    Raters of an output campaign see each output: such an output would show them a reference
    the release keeps hidden (an oracle baseline, or a team that had the references)."""
    release = leaderboard.release
    if leaderboard.split not in release_hidden_splits(release=release):
        return {}
    references: dict[str, set[str]] = {}
    rows = ReleaseReference.objects.filter(release=release, item__split=leaderboard.split)
    for external_id, text in rows.values_list("item__external_id", "text").iterator():
        references.setdefault(external_id, set()).add(_normal(text))
    ids = leaderboard_item_ids(leaderboard=leaderboard)
    echoes = {}
    for submission in submissions:
        hyps = submission_hypotheses(submission, ids)
        found = [i for i, h in zip(ids, hyps, strict=True) if _normal(h) in references.get(i, ())]
        if found:
            echoes[submission.pk] = found
    return echoes
