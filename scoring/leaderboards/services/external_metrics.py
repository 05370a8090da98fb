"""A leaderboard owner's upload of per-response scores of metrics computed elsewhere (an LLM
judge, COMET, BERTScore): one row per submission × item, read and stored by the judgments' one
mechanism (`annotate.judgments.services.metrics`), held by the board (`LeaderboardMetric`).

The system column names a submission of the board by its id (the number in its page's address,
/leaderboards/submissions/<id>/, and the API's `id`; "#12" is read as 12): team names repeat
across a team's submissions and methods are free text. The item column names an item of the
board's split. Unlike a judgment set's upload, a row of another submission or item refuses the
file: nothing else can use those scores, and a typo would otherwise drop a system silently.
Only the owner (or staff) uploads, so naming an unknown item — of a hidden test split too —
tells nobody anything they cannot already see.

The scores are stored on the submissions' evaluated systems (copied as a human evaluation of the
board copies them), so that a study of an output campaign on them finds both by system name.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db import transaction

from annotate.judgments.columns import MappedColumn
from annotate.judgments.metric_files import MAX_PROBLEMS, MetricFile, MetricRow
from annotate.judgments.models import EvalSystem, ExternalMetric
from annotate.judgments.services.metrics import (
    external_metrics_store,
    metric_scores_read,
    metric_scores_refuse,
)
from core.lines import LineProblem
from scoring.leaderboards.models import Leaderboard, LeaderboardMetric
from scoring.leaderboards.selectors.leaderboards import (
    leaderboard_can_manage,
    leaderboard_item_ids,
)
from scoring.leaderboards.selectors.submissions import submissions_finished_by_id
from scoring.leaderboards.services.eval_systems import eval_systems_from_submissions

REFUSAL = "Only the leaderboard's owner adds metric scores to it."
SYSTEM_KEY = "the id of a finished submission of this board"


def submission_key(cell: str) -> int | None:
    """The submission id a system cell gives ("12" or "#12"), else None."""
    digits = cell.strip().removeprefix("#").strip()
    return int(digits) if digits.isascii() and digits.isdigit() and len(digits) < 12 else None


def _matched(
    leaderboard: Leaderboard, parsed: MetricFile
) -> tuple[dict[str, int], list[LineProblem]]:
    """Each system cell's submission id, and a problem per row naming another submission or
    an item outside the board's split (its first line for each)."""
    keys = {row.system: submission_key(row.system) for row in parsed.rows}
    wanted = sorted({pk for pk in keys.values() if pk is not None})
    found = submissions_finished_by_id(leaderboard=leaderboard, ids=wanted)
    items = set(leaderboard_item_ids(leaderboard=leaderboard))
    problems: list[LineProblem] = []
    told: set[tuple[str, str]] = set()
    first: dict[tuple[int | None, str], int] = {}  # "12" and "#12" are one submission
    for row in parsed.rows:
        if len(problems) >= MAX_PROBLEMS:  # a file of another board's ids: the first say it
            break
        pair = (keys[row.system], row.item)
        if pair in first and pair[0] is not None:
            why = f"submission {pair[0]} and item {row.item!r} are on line {first[pair]}"
            problems.append(LineProblem(row.line, why, "", parsed.name))
        first.setdefault(pair, row.line)
        for what, why in _row_problems(row, keys, found, items, leaderboard.split):
            if (what, why) not in told:
                told.add((what, why))
                problems.append(LineProblem(row.line, why, what, parsed.name))
    return {cell: pk for cell, pk in keys.items() if pk in found}, problems


def _row_problems(
    row: MetricRow, keys: dict, found: dict, items: set[str], split: str
) -> list[tuple[str, str]]:
    """(column, why) for a row's submission that is not the board's and item that is not of
    its split (cells cut to 40 characters: a refusal quotes them)."""
    problems = []
    if keys[row.system] not in found:
        problems.append(("system", f"{row.system[:40]!r} is not {SYSTEM_KEY}"))
    if row.item not in items:
        problems.append(("item", f"{row.item[:40]!r} is not a scored item of the {split} split"))
    return problems


def _refuse_taken_names(leaderboard: Leaderboard, parsed: MetricFile) -> None:
    taken = LeaderboardMetric.objects.filter(
        leaderboard=leaderboard, metric__name__in=parsed.metrics
    ).values_list("metric__name", flat=True)
    if taken:
        why = "the board has a metric of this name already: delete it first"
        metric_scores_refuse([LineProblem(1, why, name) for name in sorted(taken)])


def _systems(leaderboard: Leaderboard, ids: dict[str, int]) -> dict[str, EvalSystem]:
    """System cell → the evaluated system of its submission (copied now if not yet)."""
    submissions = submissions_finished_by_id(leaderboard=leaderboard, ids=sorted(set(ids.values())))
    ordered = list(submissions.values())
    copied = eval_systems_from_submissions(submissions=ordered)
    by_id = {s.pk: system for s, system in zip(ordered, copied, strict=True)}
    return {cell: by_id[pk] for cell, pk in ids.items()}


@transaction.atomic
def leaderboard_metrics_import(
    *,
    leaderboard: Leaderboard,
    user: User,
    name: str,
    data: bytes,
    metrics: list[str] | None = None,
    lower_is_better: list[str] | None = None,
    description: str = "",
    columns: list[MappedColumn] | None = None,
) -> list[ExternalMetric]:
    """Store each metric column of the file on `leaderboard` (all or nothing). Arguments as for
    a judgment set's upload; the system column holds submission ids. `PermissionDenied` for
    anyone but the owner or staff; `MetricScoresRejected` names each bad line and column."""
    if not leaderboard_can_manage(user=user, leaderboard=leaderboard):
        raise PermissionDenied(REFUSAL)
    # Two uploads of one name at once: the second waits here and then finds the name taken.
    Leaderboard.objects.select_for_update().filter(pk=leaderboard.pk).first()
    parsed, lower = metric_scores_read(
        name=name, data=data, metrics=metrics, lower_is_better=lower_is_better, columns=columns
    )
    ids, problems = _matched(leaderboard, parsed)
    if problems:
        metric_scores_refuse(problems)
    _refuse_taken_names(leaderboard, parsed)
    created = external_metrics_store(
        parsed=parsed,
        rows=parsed.rows,
        systems=_systems(leaderboard, ids),
        lower=lower,
        description=description,
        warnings=[],
    )
    LeaderboardMetric.objects.bulk_create(
        LeaderboardMetric(leaderboard=leaderboard, metric=metric, uploaded_by=user)
        for metric in created
    )
    return created


@transaction.atomic
def leaderboard_metric_delete(*, link: LeaderboardMetric, user: User) -> None:
    """Remove an uploaded metric, its scores and its link (a study that used it keeps its
    stored result)."""
    if not leaderboard_can_manage(user=user, leaderboard=link.leaderboard):
        raise PermissionDenied("Only the leaderboard's owner removes its metric scores.")
    link.metric.delete()  # cascades to the scores and to the link


def leaderboard_metrics_forget(*, leaderboards: Iterable[Leaderboard]) -> None:
    """Remove the metrics uploaded to boards about to be deleted: deleting a board removes its
    links only, and a metric without a judgment set or a link would be nobody's."""
    ExternalMetric.objects.filter(leaderboard_link__leaderboard__in=list(leaderboards)).delete()
