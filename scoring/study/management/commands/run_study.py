"""Run a correlation study of a dataset's human evaluation here and now (the page and the API
queue the same study for a worker) and print every metric's correlation with the human judgments:
system-level and pair-level tables."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import CommandError

from annotate.datasets.commands import DatasetCommand
from annotate.datasets.models import Dataset
from annotate.judgments.models import JudgmentSet
from annotate.rating.models import Campaign
from annotate.releases.models import Release
from core.command_args import file_to_write, file_write
from core.refusals import refusal_as_command_error
from core.runs.engine import run_execute
from scoring.study.models import CorrelationStudy, CriteriaCombination, LeaveOneOut
from scoring.study.selectors import study_source_of_dataset
from scoring.study.services import study_create


def _one(model, dataset: Dataset, pk: int | None, what: str):
    if pk is None:
        return None
    found = study_source_of_dataset(model=model, dataset=dataset, pk=pk)
    if found is None:
        raise CommandError(f"No {what} {pk} in dataset {dataset.slug!r}.")
    return found


def _interval(part: dict | None) -> str:
    if not part or part.get("value") is None:
        return "undefined"
    if part.get("low") is None:  # Kendall over many responses: its value alone
        return f"{part['value']:.3f} (no interval)"
    return f"{part['value']:.3f} ({part['low']:.3f}, {part['high']:.3f})"


class Command(DatasetCommand):
    help = __doc__

    def add_arguments(self, parser):
        super().add_arguments(parser)
        human = parser.add_mutually_exclusive_group(required=True)
        human.add_argument("--judgments", type=int, help="Imported judgments (id).")
        human.add_argument("--output-campaign", type=int, help="A campaign on outputs (id).")
        weights = parser.add_mutually_exclusive_group()
        weights.add_argument("--release", type=int, help="Weights of this release (id).")
        weights.add_argument("--weight-campaign", type=int, help="Weights of this campaign (id).")
        parser.add_argument(
            "--criterion", action="append", default=[], help="Repeat for several (default: first)."
        )
        parser.add_argument("--mean", action="store_true", help="Study the criteria's mean.")
        parser.add_argument("--exclude", action="append", default=[], help="A system to leave out.")
        parser.add_argument("--leave-one-out", choices=LeaveOneOut.values, default="auto")
        parser.add_argument("--split", default="test", choices=["dev", "test"])
        parser.add_argument("--name", default="")
        parser.add_argument("--unit-size", type=int, default=100)
        parser.add_argument("--assignments", type=int, default=1000)
        parser.add_argument("--metric", action="append", default=[], help="Default: every one.")
        parser.add_argument(
            "--external",
            action="append",
            default=None,
            help="An uploaded metric of the judgments to include (default: every one).",
        )
        parser.add_argument("--no-external", action="store_true", help="Include none of them.")
        parser.add_argument("--no-sweeps", action="store_true", help="Skip Figure 2's sweeps.")
        parser.add_argument("--json", type=Path, help="Also write the whole result here.")

    def handle(self, *args, **opts):
        dataset = self.dataset(opts["slug"])
        if opts["json"] is not None:  # checked now: the study may take minutes
            file_to_write(opts["json"], option="--json")
        options = {"unit_size": opts["unit_size"], "assignments": opts["assignments"]}
        options |= {"metrics": opts["metric"]} if opts["metric"] else {}
        options |= {"sweeps": False} if opts["no_sweeps"] else {}
        if opts["no_external"] or opts["external"] is not None:
            options["external"] = [] if opts["no_external"] else opts["external"]
        with refusal_as_command_error():
            study = study_create(
                owner=dataset.owner,
                name=opts["name"] or f"{dataset.slug} study",
                split=opts["split"],
                judgment_set=_one(JudgmentSet, dataset, opts["judgments"], "judgments"),
                output_campaign=_one(Campaign, dataset, opts["output_campaign"], "campaign"),
                release=_one(Release, dataset, opts["release"], "release"),
                weight_campaign=_one(Campaign, dataset, opts["weight_campaign"], "campaign"),
                criteria=opts["criterion"],
                combine=CriteriaCombination.MEAN if opts["mean"] else CriteriaCombination.SEPARATE,
                excluded_systems=opts["exclude"],
                leave_one_out=opts["leave_one_out"],
                options=options,
                send=False,
            )
        run_execute(run_id=study.run.pk, attempt=study.run.attempt)
        study.refresh_from_db()
        study.run.refresh_from_db()
        if study.run.state != "succeeded":
            raise CommandError(f"Study {study.pk} {study.run.state}: {study.run.reason}")
        self._print(study)  # first: the tables are there even if the file cannot be written
        if opts["json"] is not None:
            file_write(opts["json"], [json.dumps(study.result, indent=1)], option="--json")

    def _print(self, study: CorrelationStudy) -> None:
        result, out = study.result, self.stdout.write
        out(f"Study {study.pk}: {result['inputs']['weights']}")
        for note in result.get("notes", []):
            out(f"note: {note}")
        for criterion, level in (result.get("systems") or {}).items():
            out(f"\nSystems — {criterion} ({level['items']} items every system has)")
            for row in level["systems"]:
                out(f"  {row['system']:<24} human {_interval(row['human'])}")
            out(f"  {'metric':<24} {'Pearson':<26}{'Spearman':<26}Kendall")
            for c in level["correlations"]:
                cells = "".join(
                    f"{_interval(c[k]):<26}" for k in ("pearson", "spearman", "kendall")
                )
                out(f"  {c['key']:<24} {cells}")
        for criterion, level in (result.get("segments") or {}).items():
            out(f"\nSegments — {criterion} (per response; all responses | item-grouped)")
            ranks = {r["key"]: r["rank"] for r in level["clusters"]["ranks"]}
            for c in level["correlations"]:
                cells = " | ".join(
                    f"{name[0]} {_interval(c[grouping][name])}"
                    for grouping in ("none", "item")
                    for name in ("pearson", "kendall")
                )
                out(f"  {c['key']:<24} {cells}  rank {ranks.get(c['key'], '—')}")
        criteria = result.get("criteria") or {"": {"table": result.get("table", [])}}
        for criterion, part in criteria.items():
            out(f"\nSystem pairs — {criterion} ({result['n_units']} units per assignment)")
            for row in part["table"]:
                rho, tau = _interval(row["rho"]), _interval(row.get("tau"))
                out(f"  {row['key']:<24} ρ {rho:<26} τ {tau}")
