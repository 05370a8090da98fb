"""Import of existing human judgments with their systems' outputs (and optionally the items).

Nothing here refuses a whole bundle for one bad line: bad rows are skipped and listed with
their file and line, oddities that do not lose data (a byte-order mark, an item with no
references, a judged system without outputs) are listed as warnings. The import is refused
only when no judgment survives, and it is written in one transaction either way.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Max

from annotate.datasets.models import Dataset, Item, Reference, Split
from annotate.judgments.models import EvalSystem, Judgment, JudgmentSet
from annotate.judgments.parsing import (
    Contexts,
    Judgments,
    Outputs,
    Parsed,
    References,
    parse_contexts,
    parse_judgments,
    parse_outputs,
    parse_references,
)
from annotate.judgments.services.systems import eval_system_set_outputs
from core.lines import LineProblem

MAX_LISTED_PROBLEMS = 500
BUNDLE_FILES = ("contexts", "references", "systems", "judgments")


class JudgmentsRejected(ValidationError):
    """No judgment survived parsing: nothing was written; `problems` says why, by file and line."""

    def __init__(self, message: str, problems: list[LineProblem]):
        super().__init__(message)
        self.problems = problems


@dataclass
class Bundle:
    judgments: Judgments
    outputs: Outputs | None = None
    contexts: Contexts | None = None
    references: References | None = None


def bundle_parse(
    *,
    judgments: tuple[str, bytes],
    systems: tuple[str, bytes] | None = None,
    contexts: tuple[str, bytes] | None = None,
    references: tuple[str, bytes] | None = None,
) -> Bundle:
    """Parse the files given as (name, bytes)."""
    return Bundle(
        parse_judgments(judgments[1], judgments[0]),
        parse_outputs(systems[1], systems[0]) if systems else None,
        parse_contexts(contexts[1], contexts[0]) if contexts else None,
        parse_references(references[1], references[0]) if references else None,
    )


def _cross_checks(bundle: Bundle, known_items: set[str], judgments_name: str) -> list[LineProblem]:
    found = Parsed()
    items = set(known_items)
    if bundle.contexts is not None:
        items |= set(bundle.contexts.items)
    missing_items: dict[str, int] = {}
    no_output: dict[str, int] = {}
    outputs = bundle.outputs.by_system if bundle.outputs else None
    for row in bundle.judgments.rows:
        if items and row.item not in items:
            missing_items.setdefault(row.item, row.line)
        if outputs is not None and row.item not in outputs.get(row.system, {}):
            no_output.setdefault(row.system, row.line)
    for item_id, line in missing_items.items():
        found.warn(judgments_name, line, f"item {item_id!r} is in no context file")
    for system, line in no_output.items():
        what = "has no outputs" if outputs and system not in outputs else "lacks some outputs"
        found.warn(judgments_name, line, f"judged system {system!r} {what} in the system file")
    if bundle.contexts is not None and bundle.references is not None:
        for item_id in bundle.contexts.items:
            if not bundle.references.items.get(item_id):
                found.warn("references", 0, f"item {item_id!r} has no references")
    return found.problems


def _create_items(dataset: Dataset, split: Split, bundle: Bundle) -> int:
    if bundle.contexts is None:
        return 0
    existing = set(Item.objects.filter(split=split).values_list("external_id", flat=True))
    start = (Item.objects.filter(split__dataset=dataset).aggregate(m=Max("position"))["m"] or 0) + 1
    refs = bundle.references.items if bundle.references else {}
    created = 0
    for item_id, (turns, message) in bundle.contexts.items.items():
        if item_id in existing:
            continue
        item = Item.objects.create(
            split=split,
            external_id=item_id,
            context=turns,
            message=message,
            position=start + created,
        )
        Reference.objects.bulk_create(
            Reference(
                item=item,
                text=text,
                origin="original" if k == 0 else "written",
                provenance={"import": "judgments bundle", "column": k + 1},
                position=k,
            )
            for k, text in enumerate(refs.get(item_id, []))
        )
        created += 1
    return created


def _all_problems(bundle: Bundle) -> list[LineProblem]:
    parts: list[Parsed | None] = [bundle.contexts, bundle.references, bundle.outputs]
    return [p for part in (*parts, bundle.judgments) if part for p in part.problems]


@transaction.atomic
def judgments_import(
    *, dataset: Dataset, owner: User, name: str, split: str, bundle: Bundle
) -> JudgmentSet:
    """Write a parsed bundle: items (when contexts came), systems, outputs, the judgments."""
    problems = _all_problems(bundle)
    if not bundle.judgments.rows:
        listed = "; ".join(str(p) for p in problems[:20]) or "the file is empty"
        raise JudgmentsRejected(f"No judgment could be read: {listed}", problems)
    split_row, _ = Split.objects.get_or_create(dataset=dataset, name=split)
    created_items = _create_items(dataset, split_row, bundle)
    known = set(Item.objects.filter(split=split_row).values_list("external_id", flat=True))
    problems += _cross_checks(bundle, known, "judgments")
    systems: dict[str, EvalSystem] = {}
    outputs = bundle.outputs.by_system if bundle.outputs else {}
    for system_name in sorted({r.system for r in bundle.judgments.rows} | set(outputs)):
        if system_name in outputs:
            systems[system_name] = eval_system_set_outputs(
                dataset=dataset,
                name=system_name,
                split=split,
                outputs=outputs[system_name].items(),
            )
        else:
            systems[system_name], _ = EvalSystem.objects.get_or_create(
                dataset=dataset, name=system_name
            )
    errors = Counter(p.level for p in problems)
    judgment_set = JudgmentSet.objects.create(
        dataset=dataset,
        owner=owner,
        name=name,
        split=split,
        criteria=bundle.judgments.criteria,
        report={
            "judgments": sum(len(r.scores) for r in bundle.judgments.rows),
            "rows": len(bundle.judgments.rows),
            "items_created": created_items,
            "systems": sorted(systems),
            "errors": errors["error"],
            "warnings": errors["warning"],
            "problems": [p.as_dict() for p in problems[:MAX_LISTED_PROBLEMS]],
        },
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
    return judgment_set


def judgments_import_files(
    *, dataset: Dataset, owner: User, name: str, split: str, files: dict
) -> JudgmentSet:
    """Uploaded files (keys of BUNDLE_FILES, judgments required) parsed and imported at once;
    only the dataset's owner (or staff) may import into it."""
    if not (owner.is_staff or dataset.owner_id == owner.pk):
        raise PermissionDenied("Only the dataset's owner can import judgments.")
    read = {
        key: (upload.name or key, upload.read())
        for key in BUNDLE_FILES
        if (upload := files.get(key)) is not None
    }
    if "judgments" not in read:
        raise ValidationError({"judgments": "The per-judge file is required."})
    bundle = bundle_parse(**read)
    return judgments_import(
        dataset=dataset, owner=owner, name=name or read["judgments"][0], split=split, bundle=bundle
    )
