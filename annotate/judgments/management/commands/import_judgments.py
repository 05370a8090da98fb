"""Import human judgments (and their systems' outputs, contexts and references) into a dataset:
per-judge judgments, or one row per system × item of scores already aggregated (TSV/CSV/JSONL),
problems listed by file and line. One file may hold everything: responses, references and
context turns in columns of their own (several values a cell, the separator detected or given
with --separator). Columns are recognised by name (SystemID, InstanceID, WorkerId …); when
unsure, map them with --column ROLE=COLUMN."""

from __future__ import annotations

from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError

from annotate.datasets.commands import DatasetCommand
from annotate.datasets.models import Dataset
from annotate.judgments.bundles import ColumnsUnsure, read_options
from annotate.judgments.columns import ROLES, mapping_from_option
from annotate.judgments.services.importing import judgments_import_files
from core.command_args import file_to_read


def _file(path: str | None, option: str = "") -> tuple[str, bytes] | None:
    if not path:
        return None
    checked = file_to_read(Path(path), option=option)
    try:
        return checked.name, checked.read_bytes()
    except OSError as exc:
        raise CommandError(f"Cannot read {path}: {exc.strerror or exc}.") from None


def _pair(option: str) -> tuple[str, str]:
    role, sep, separator = option.partition("=")
    if not sep or not role.strip() or not separator:
        raise CommandError(f"--separator {option!r}: expected ROLE=SEPARATOR.")
    return role, separator


def _preview_lines(preview: dict) -> list[str]:
    """Each unsure file's columns with the role guessed for each, to choose --column from."""
    lines = []
    for key, file in preview["files"].items():
        if file["sure"]:
            continue
        columns = ", ".join(
            f"{c['number']}:{c['name'] or '?'}={c['role']}" for c in file["columns"]
        )
        lines.append(f"{key} ({file['file']}): {columns}")
        lines += ["  " + " | ".join(row) for row in file["rows"][:3]]
        lines += [f"  {splitting['explanation']}" for splitting in file["separators"]]
    return lines


class Command(DatasetCommand):
    help = __doc__

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("judgments")
        parser.add_argument("--systems", help="system responses: system, id, response")
        parser.add_argument("--contexts", help="contexts: id, depth, context")
        parser.add_argument("--references", help="references: id, ref1, ref2, …")
        parser.add_argument("--split", default="test", choices=["dev", "test"])
        parser.add_argument("--name", default="")
        parser.add_argument(
            "--column",
            action="append",
            default=[],
            metavar="[FILE.]ROLE=COLUMN",
            help=f"which column holds a role ({', '.join(ROLES)}), by header name or 1-based "
            "number; FILE is one of contexts, references, systems, judgments (default: every "
            "file with that column). Repeatable.",
        )
        parser.add_argument(
            "--separator",
            action="append",
            default=[],
            metavar="ROLE=SEP",
            help="how the judgments file's cells of several values are split (ROLE: references "
            "or context; SEP: tab, newline, '|||', '||||', eos, eou, json, none); detected when "
            "not given. Repeatable.",
        )
        parser.add_argument(
            "--original",
            choices=["first", "last"],
            help="where the original reply is among a cell's references (default: first, or "
            "as remembered for this header); an 'original' column overrides it",
        )
        parser.add_argument(
            "--wide",
            choices=["systems"],
            help="the score columns are one a system, named by it (no system column); their "
            "criterion is 'score'",
        )

    def handle(self, *args, **opts):
        dataset = self.dataset(opts["slug"])
        try:
            imported = self._import(dataset, opts)
        except ColumnsUnsure as exc:
            for line in _preview_lines(exc.preview):
                self.stderr.write(line)
            raise CommandError(exc.messages[0]) from None
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None
        self._report(imported.report)

    def _import(self, dataset: Dataset, opts: dict):
        pairs = [_pair(option) for option in opts["separator"]]
        given = {"systems": "--systems", "contexts": "--contexts", "references": "--references"}
        files = {key: _file(opts[key], option) for key, option in given.items()}
        return judgments_import_files(
            dataset=dataset,
            owner=dataset.owner,
            name=opts["name"] or Path(opts["judgments"]).name,
            split=opts["split"],
            files={"judgments": _file(opts["judgments"]), **files},
            columns=mapping_from_option(opts["column"]),
            options=read_options(
                separators=pairs, original=opts["original"] or "", wide=opts["wide"] or ""
            ),
        )

    def _report(self, report: dict) -> None:
        for p in report["problems"]:
            where = f"{p['file']}, line {p['line']}" if p["line"] and p["count"] == 1 else p["file"]
            self.stderr.write(f"{p['level']}: {where}: {p['message']}")
        self.stdout.write(
            f"Imported {report['judgments']} judgments ({report['rows']} rows) of "
            f"{len(report['systems'])} systems; {report['items_created']} items created; "
            f"{report['errors']} rows skipped, {report['warnings']} warnings; "
            f"{report['items_without_references']['count']} items without references."
        )
        if report.get("aggregated"):
            judges = report.get("judges_per_row")
            over = f" over {judges['min']}–{judges['max']} judges" if judges else ""
            self.stdout.write(f"Scores already aggregated{over}: one row per system and item.")
        for splitting in report.get("separators", []):
            self.stdout.write(f"Read {splitting['explanation']}.")
