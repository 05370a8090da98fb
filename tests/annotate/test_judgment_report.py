"""The import's report counts and lists: like problems are one entry with a count and the
first lines or ids, reference-less and context-less items are listed by id; and the synthetic
human evaluation imports whole."""

import pytest
from django.core.management import call_command

from annotate.judgments.models import EvalSystem, Judgment, JudgmentSet
from annotate.judgments.services.importing import bundle_parse, judgments_import
from core.lines import LineProblem, problems_counted
from tests.human_eval_files import HUMAN, write_human_eval


def test_like_problems_are_counted_as_one_entry_with_the_first_ids():
    problems = [
        LineProblem(
            k,
            f"item '{k}' has no references",
            file="r.tsv",
            level="warning",
            kind="items have no references",
            subject=str(k),
        )
        for k in range(101, 147)
    ] + [LineProblem(3, "bad", file="j.tsv"), LineProblem(9, "bad", file="j.tsv")]
    counted = problems_counted(problems)
    assert [c.count for c in counted] == [46, 2]
    assert counted[0].message == (
        "46 items have no references: "
        + ", ".join(str(k) for k in range(101, 121))
        + ", … (first 20)"
    )
    assert counted[0].subjects[:2] == ["101", "102"] and counted[0].line == 101
    assert str(counted[1]) == "j.tsv: bad (2 times): lines 3, 9"
    one = problems_counted([LineProblem(4, "odd", file="j.tsv")])[0]
    assert str(one) == "j.tsv, line 4: odd" and one.as_dict()["count"] == 1


def _bundle(files, **kwargs):
    def read(key):
        path = files.paths[key]
        return (path.name, path.read_bytes())

    return bundle_parse(**{key: read(key) for key in files.paths}, **kwargs)


@pytest.mark.django_db
def test_the_synthetic_evaluation_imports_with_every_reference_less_item_listed(
    make_dataset, owner, tmp_path
):
    files = write_human_eval(tmp_path, seed=3, contexts=120, systems=4)
    dataset = make_dataset(slug="he", data=None)
    imported = judgments_import(
        dataset=dataset, owner=owner, name="he", split="test", bundle=_bundle(files)
    )
    report = imported.report
    assert imported.criteria == ["Relevance", "Informativeness"]
    assert sorted(report["systems"]) == sorted(files.systems) and HUMAN in report["systems"]
    assert report["rows"] == 120 * 4 * 3 and report["errors"] == 0
    assert report["items_created"] == 120
    assert report["items_without_references"] == {
        "count": len(files.reference_less),
        "ids": files.reference_less,
    }
    assert report["items_without_context"]["count"] == 0
    no_refs = [p for p in report["problems"] if "have no references" in p["message"]]
    assert len(no_refs) == 1 and no_refs[0]["count"] == len(files.reference_less) == 6
    assert set(no_refs[0]["subjects"]) == set(files.reference_less)
    assert report["columns"]["judgments"][2] == {"name": "WorkerId", "role": "judge"}
    assert Judgment.objects.filter(judgment_set=imported).count() == 120 * 4 * 3 * 2


@pytest.mark.django_db
def test_judged_items_without_a_context_are_counted_and_listed(make_dataset, owner):
    dataset = make_dataset(slug="he", data=None)
    lines = "".join(f"j\tc{k}\tmt\t3\n" for k in range(30))
    bundle = bundle_parse(judgments=("j.tsv", f"judge\tid\tsystem\tq\n{lines}".encode()))
    report = judgments_import(
        dataset=dataset, owner=owner, name="x", split="test", bundle=bundle
    ).report
    assert report["items_without_context"]["count"] == 30
    assert report["items_without_context"]["ids"][:3] == ["c0", "c1", "c2"]  # c2 before c10
    [entry] = [p for p in report["problems"] if "no context" in p["message"]]
    assert entry["count"] == 30 and entry["message"].startswith("30 judged items have no context")
    assert entry["message"].endswith(", … (first 20)") and len(entry["subjects"]) == 20


@pytest.mark.slow  # two evaluations of 1,000 items written: make test and CI, not test-fast
def test_the_synthetic_evaluation_is_deterministic_and_shaped_like_the_real_one(tmp_path):
    files = write_human_eval(tmp_path / "a", seed=5)
    again = write_human_eval(tmp_path / "b", seed=5)
    for key, path in files.paths.items():
        assert path.read_bytes() == again.paths[key].read_bytes()
    assert len(files.systems) == 10 and len(files.item_ids) == 1000 and len(files.judges) == 3
    assert 40 <= len(files.reference_less) <= 60
    assert files.paths["contexts"].read_bytes().startswith(b"\xef\xbb\xbf")
    ref_widths = {line.count("\t") for line in files.paths["references"].read_text().splitlines()}
    assert {1, 2, 3, 4} <= ref_widths  # ragged rows: 1–4 references
    ranked = sorted(files.qualities, key=files.qualities.get)
    assert ranked[-1] == HUMAN
    bundle = _bundle(files)
    refs = bundle.references.items
    human = bundle.outputs.by_system[HUMAN]
    assert all(human[item] in refs[item] for item in refs if refs[item])

    def overlap(system):
        outputs = bundle.outputs.by_system[system]
        shared = [
            len(set(outputs[i].split()) & set(" ".join(refs[i]).split())) / len(outputs[i].split())
            for i in refs
            if refs[i]
        ]
        return sum(shared) / len(shared)

    def mean_score(system):
        rows = [r.scores["Relevance"] for r in bundle.judgments.rows if r.system == system]
        return sum(rows) / len(rows)

    worst, best = ranked[0], ranked[-2]
    assert overlap(worst) < overlap(best) < overlap(HUMAN)
    assert mean_score(worst) < mean_score(best)


@pytest.mark.django_db
def test_the_command_imports_the_synthetic_evaluation_with_a_counted_report(
    make_dataset, tmp_path, capsys
):
    files = write_human_eval(tmp_path, seed=1, contexts=200, systems=3)
    make_dataset(slug="he", data=None)
    call_command(*files.import_judgments_args("he"))
    out = capsys.readouterr()
    assert "Imported 3600 judgments (1800 rows) of 3 systems; 200 items created" in out.out
    assert f"{len(files.reference_less)} items without references" in out.out
    refless = [line for line in out.err.splitlines() if "have no references" in line]
    assert len(refless) == 1 and refless[0].startswith("warning: references.tsv: ")
    assert EvalSystem.objects.count() == 3 and JudgmentSet.objects.count() == 1
