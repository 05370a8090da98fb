"""Import of existing human judgments with their systems' outputs (and optionally the items).

Nothing here refuses a whole bundle for one bad line: bad rows are skipped and listed with
their file and line, oddities that do not lose data (a byte-order mark, an item with no
references, a judged system without outputs) are listed as warnings. The import is refused
only when no judgment survives, and it is written in one transaction either way.
"""

from __future__ import annotations

import re
from collections import Counter

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Max

from annotate.datasets.models import Dataset, Item, Reference, Split
from annotate.datasets.selectors.collisions import split_collision_message, split_collisions
from annotate.judgments.bundles import (
    BUNDLE_FILES,
    Bundle,
    ColumnsUnsure,
    NamedBytes,
    ReadOptions,
    bundle_check,
    bundle_parse,
)
from annotate.judgments.columns import MappedColumn
from annotate.judgments.models import EvalSystem, Judgment, JudgmentSet
from annotate.judgments.parsing import NO_REFERENCES
from annotate.judgments.services.mappings import column_mapping_recall, column_mapping_remember
from annotate.judgments.services.systems import eval_system_set_outputs
from annotate.judgments.tables import Parsed
from core.bulk import analyze_after_commit
from core.lines import LineProblem, problems_counted

__all__ = [
    "BUNDLE_FILES",
    "Bundle",
    "ColumnsUnsure",
    "ReadOptions",
    "bundle_parse",
    "judgments_import",
]
MAX_LISTED_PROBLEMS = 500  # counted entries: like problems are one entry already
CONTEXTLESS = "judged items have no context (in no context file, not in the dataset)"
KEPT = (
    "items the split has already, kept as they are: the files give them another context or "
    "references"
)
LISTED_IDS = 100  # ids of reference-less or context-less items kept in the report


class JudgmentsRejected(ValidationError):
    """No judgment survived parsing: nothing was written; `problems` says why, by file and line."""

    def __init__(self, message: str, problems: list[LineProblem]):
        super().__init__(message)
        self.problems = problems


def _cross_checks(bundle: Bundle, known_items: set[str], with_refs: set[str]) -> Parsed:
    """What the files say of each other: judged items nobody gave a context for, judged
    systems without outputs, items without references (each item once, by its id)."""
    found = Parsed()
    judgments_name = bundle.name_of("judgments")
    outputs = bundle.outputs.by_system if bundle.outputs else None
    missing_items: dict[str, int] = {}
    no_output: dict[str, int] = {}
    for row in bundle.judgments.rows:
        if row.item not in known_items:
            missing_items.setdefault(row.item, row.line)
        if outputs is not None and row.item not in outputs.get(row.system, {}):
            no_output.setdefault(row.system, row.line)
    for item_id, line in missing_items.items():
        message = f"item {item_id!r} is in no context file"
        found.warn(judgments_name, line, message, CONTEXTLESS, item_id)
    for system, line in no_output.items():
        what = "has no outputs" if outputs and system not in outputs else "lacks some outputs"
        found.warn(judgments_name, line, f"judged system {system!r} {what} in the system file")
    references = bundle.references
    refs_name = bundle.name_of("references") if references else "references"
    for item_id in _item_ids(bundle, known_items) - with_refs:
        if references is None or item_id not in references.items:  # else warned at its line
            message = f"item {item_id!r} has no references"
            found.warn(refs_name, 0, message, NO_REFERENCES, item_id)
    return found


def _item_ids(bundle: Bundle, known_items: set[str]) -> set[str]:
    """Items of this import: every item the files name that the dataset has."""
    named = {row.item for row in bundle.judgments.rows}
    if bundle.contexts is not None:
        named |= set(bundle.contexts.items)
    return named & known_items


def _ids(ids: set[str]) -> dict[str, object]:
    return {"count": len(ids), "ids": sorted(ids, key=_natural)[:LISTED_IDS]}


def _natural(text: str) -> list[object]:
    """ "c9" before "c10": the runs of digits in ids compared as numbers."""
    return [int(p) if k % 2 else p for k, p in enumerate(re.split(r"(\d+)", text))]


def _kept_items_differing(split: Split, bundle: Bundle) -> list[LineProblem]:
    """A warning for each item the split has already whose context or references the files
    give otherwise: an import adds items, never changes one (a release may hold it), so the
    new text is not written, and the owner must hear it was not."""
    if bundle.contexts is None:
        return []
    given = bundle.contexts.items
    refs = bundle.references.items if bundle.references else {}
    stored = Item.objects.filter(split=split, external_id__in=list(given)).prefetch_related(
        "references"
    )
    differing = [
        item.external_id
        for item in stored
        if (list(item.context), item.message) != tuple(given[item.external_id])
        or (
            item.external_id in refs
            and sorted(r.text for r in item.references.all()) != sorted(refs[item.external_id])
        )
    ]
    name = bundle.name_of("contexts")
    return [
        LineProblem(0, KEPT, file=name, level="warning", kind=KEPT, subject=item_id)
        for item_id in sorted(differing)
    ]


def _create_items(dataset: Dataset, split: Split, bundle: Bundle) -> int:
    """The contexts' items that the split lacks, with their references, in two bulk writes."""
    if bundle.contexts is None:
        return 0
    existing = set(Item.objects.filter(split=split).values_list("external_id", flat=True))
    start = (Item.objects.filter(split__dataset=dataset).aggregate(m=Max("position"))["m"] or 0) + 1
    new = [(k, v) for k, v in bundle.contexts.items.items() if k not in existing]
    items = Item.objects.bulk_create(
        Item(split=split, external_id=item_id, context=turns, message=message, position=start + n)
        for n, (item_id, (turns, message)) in enumerate(new)
    )
    if any(item.pk is None for item in items):  # a database that does not return new keys
        items = list(Item.objects.filter(split=split, external_id__in=[k for k, _ in new]))
    refs = bundle.references.items if bundle.references else {}
    Reference.objects.bulk_create(
        (
            Reference(
                item=item,
                text=text,
                origin="original" if k == 0 else "written",
                provenance={"import": "judgments bundle", "column": k + 1},
                position=k,
            )
            for item in items
            for k, text in enumerate(refs.get(item.external_id, []))
        ),
        batch_size=2000,
    )
    return len(items)


def _all_problems(bundle: Bundle) -> list[LineProblem]:
    return [p for part in bundle.parts for p in part.problems]


def _systems(dataset: Dataset, split: str, bundle: Bundle) -> dict[str, EvalSystem]:
    outputs = bundle.outputs.by_system if bundle.outputs else {}
    systems = {
        name: eval_system_set_outputs(
            dataset=dataset, name=name, split=split, outputs=outputs[name].items()
        )
        for name in sorted(outputs)
    }
    # Judged systems without outputs: made in one statement, not a round trip each (20,000
    # names took 22 s), then read back with the dataset's others.
    judged = {r.system for r in bundle.judgments.rows} - set(outputs)
    EvalSystem.objects.bulk_create(
        [EvalSystem(dataset=dataset, name=name) for name in sorted(judged)],
        batch_size=1000,
        ignore_conflicts=True,
    )
    systems.update(
        (system.name, system)
        for system in EvalSystem.objects.filter(dataset=dataset)
        if system.name in judged
    )
    return systems


def _report(bundle: Bundle, problems: list[LineProblem], **counts: object) -> dict:
    levels = Counter(p.level for p in problems)
    without = {p.subject for p in problems if p.kind == NO_REFERENCES and p.subject}
    contextless = {p.subject for p in problems if p.kind == CONTEXTLESS}
    counted = problems_counted(problems)
    return {
        "judgments": sum(len(r.scores) for r in bundle.judgments.rows),
        "rows": len(bundle.judgments.rows),
        **counts,
        "errors": levels["error"],
        "warnings": levels["warning"],
        "items_without_references": _ids(without),
        "items_without_context": _ids(contextless),
        "columns": bundle.columns(),
        **_how_read(bundle),
        "problems": [p.as_dict() for p in counted[:MAX_LISTED_PROBLEMS]],
        "problems_not_listed": max(0, len(counted) - MAX_LISTED_PROBLEMS),
    }


def _how_read(bundle: Bundle) -> dict[str, object]:
    """Whether the scores are aggregated over judges (and over how many), which parts the
    judgments file held itself, and how its multi-valued cells were split."""
    judged = bundle.judgments
    counts = [row.judges for row in judged.rows if row.judges is not None]
    judges = (
        {"column": judged.judges_column, "min": min(counts), "max": max(counts),
         "mean": round(sum(counts) / len(counts), 3)}
        if counts else None
    )  # fmt: skip
    return {
        "aggregated": judged.aggregated,
        "judges_per_row": judges,
        "embedded": bundle.embedded,
        "remembered": bundle.remembered,
        "separators": bundle.separators(),
    }


def _refuse_split_collisions(dataset: Dataset, split: str, bundle: Bundle) -> None:
    """An item id names one conversation in one split: ids the dataset has in another split
    are refused (the lines are the judgments file's; the contexts file keeps no lines by id)."""
    lines = {row.item: row.line for row in reversed(bundle.judgments.rows)}
    ids = [*(bundle.contexts.items if bundle.contexts else ()), *lines]
    clashes = split_collisions(dataset=dataset, split=split, external_ids=ids)
    if clashes:
        message = split_collision_message(clashes, split=split, lines=lines)
        raise JudgmentsRejected(message, [LineProblem(0, message, "id", file="judgments")])


@transaction.atomic
def judgments_import(
    *, dataset: Dataset, owner: User, name: str, split: str, bundle: Bundle
) -> JudgmentSet:
    """Write a parsed bundle: items (when contexts came), systems, outputs, the judgments.
    Refused, with nothing written, when some file's columns were unsure (`ColumnsUnsure`) or
    no judgment could be read (`JudgmentsRejected`)."""
    bundle_check(bundle)
    problems = _all_problems(bundle)
    if not bundle.judgments.rows:
        name = bundle.name_of("judgments")
        if not any(p.level == "error" and p.file == name for p in problems):  # say why
            empty = "the file holds no judgment rows (a header alone, or nothing)"
            problems.append(LineProblem(0, empty, file=name))
        counted = problems_counted(problems)
        listed = "; ".join(str(p) for p in counted[:20])
        raise JudgmentsRejected(f"No judgment could be read: {listed}", problems)
    _refuse_split_collisions(dataset, split, bundle)
    split_row, _ = Split.objects.get_or_create(dataset=dataset, name=split)
    problems += _kept_items_differing(split_row, bundle)
    created_items = _create_items(dataset, split_row, bundle)
    items = Item.objects.filter(split=split_row)
    known = set(items.values_list("external_id", flat=True))
    referenced = Reference.objects.filter(item__in=items).values_list("item__external_id")
    problems += _cross_checks(bundle, known, {r for (r,) in referenced}).problems
    systems = _systems(dataset, split, bundle)
    judgment_set = JudgmentSet.objects.create(
        dataset=dataset,
        owner=owner,
        name=name[:200],
        split=split,
        criteria=bundle.judgments.criteria,
        report=_report(bundle, problems, items_created=created_items, systems=sorted(systems)),
    )
    Judgment.objects.bulk_create(
        (
            Judgment(
                judgment_set=judgment_set,
                judge=row.judge,
                external_id=row.item,
                system=systems[row.system],
                criterion=criterion,
                score=score,
            )
            for row in bundle.judgments.rows
            for criterion, score in row.scores.items()
        ),
        batch_size=2000,
    )
    analyze_after_commit(Item, Reference, Judgment, rows=len(bundle.judgments.rows))
    return judgment_set


def _bytes_of(upload: object, key: str) -> NamedBytes:
    """(name, bytes) of an upload, or of what was given as such already (a staged file)."""
    if isinstance(upload, tuple):
        return upload
    name = str(getattr(upload, "name", "") or key)
    return name[-100:], upload.read()  # type: ignore[attr-defined]


@transaction.atomic
def judgments_import_files(
    *,
    dataset: Dataset,
    owner: User,
    name: str,
    split: str,
    files: dict,
    columns: list[MappedColumn] | None = None,
    options: ReadOptions | None = None,
) -> JudgmentSet:
    """Uploaded files (keys of BUNDLE_FILES, judgments required; uploads or (name, bytes))
    parsed and imported at once, columns mapped as `columns` says and cells read as `options`
    say; only the dataset's owner (or staff) may import into it. Files with a header whose
    columns the owner mapped before are read that way; a mapping or options given are
    remembered for the next file with the same header."""
    if not (owner.is_staff or dataset.owner_id == owner.pk):
        raise PermissionDenied("Only the dataset's owner can import judgments.")
    read = {
        key: _bytes_of(upload, key)
        for key in BUNDLE_FILES
        if (upload := files.get(key)) is not None
    }
    if "judgments" not in read:
        raise ValidationError({"judgments": "The per-judge file is required."})
    recall = column_mapping_recall(owner=owner)
    bundle = bundle_parse(**read, columns=columns, options=options, recall=recall)
    imported = judgments_import(
        dataset=dataset, owner=owner, name=name or read["judgments"][0], split=split, bundle=bundle
    )
    if columns or (options and (options.separators or options.original or options.wide)):
        column_mapping_remember(owner=owner, bundle=bundle)
    return imported
