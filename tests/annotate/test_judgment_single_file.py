"""A published evaluation in one CSV (issue 41) imported as it is — through the service, the API
and the command: no judge column (the scores are means), references tab-separated with the
original last, context turns `||||`-separated. What the product needs comes out of it: items
with their turns and message, references with the original first, systems, outputs, and the
judgments, the set saying its scores are aggregated."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from annotate.datasets.models import Item, Reference
from annotate.judgments.bundles import ColumnsUnsure, ReadOptions
from annotate.judgments.models import EvalSystem, Judgment, JudgmentSet, SystemOutput
from annotate.judgments.services.importing import JudgmentsRejected, judgments_import_files
from tests.judgment_parsing import parse_contexts, parse_references
from tests.published_eval import published_eval

pytestmark = pytest.mark.django_db
API = "/api/v1/datasets/pub/judgments/"


@pytest.fixture
def dataset(make_dataset):
    return make_dataset(slug="pub", data=None)


def _check_everything_came_in(published, judgment_set: JudgmentSet) -> None:
    items = {item.external_id: item for item in Item.objects.filter(split__dataset__slug="pub")}
    assert set(items) == set(published.item_ids)
    for item_id, turns in published.turns.items():
        assert (items[item_id].context, items[item_id].message) == (turns[:-1], turns[-1])
        refs = Reference.objects.filter(item=items[item_id]).order_by("position")
        assert [r.text for r in refs] == published.references[item_id]  # the original first
        assert refs[0].origin == "original" and {r.origin for r in refs[1:]} <= {"written"}
    assert sorted(EvalSystem.objects.values_list("name", flat=True)) == published.systems
    outputs = {(o.system.name, o.external_id): o for o in SystemOutput.objects.all()}
    assert {key: o.text for key, o in outputs.items()} == published.responses
    assert all(o.item_id == items[o.external_id].pk for o in outputs.values())
    scores = {
        (j.system.name, j.external_id): j.score
        for j in Judgment.objects.filter(judgment_set=judgment_set, criterion="mean_rating")
    }
    assert scores == pytest.approx(published.means)
    assert set(Judgment.objects.values_list("judge", flat=True)) == {""}  # no judge: means
    report = judgment_set.report
    assert report["aggregated"] is True and judgment_set.criteria == ["mean_rating"]
    assert report["embedded"] == ["systems", "contexts", "references"]
    assert report["errors"] == 0 and report["items_created"] == len(published.item_ids)
    separators = {s["role"]: s["separator"] for s in report["separators"]}
    assert separators == {"references": "tab", "context": "||||"}


def test_the_service_imports_the_published_file_as_it_is(dataset, owner):
    published = published_eval(systems=5, items=20)
    imported = judgments_import_files(
        dataset=dataset,
        owner=owner,
        name="",
        split="test",
        files={"judgments": ("published.csv", published.data)},
        options=ReadOptions(original="last"),
    )
    _check_everything_came_in(published, imported)
    assert imported.name == "published.csv" and imported.report["judges_per_row"] is None
    assert "detected" in imported.report["separators"][0]["explanation"]


def test_the_api_imports_the_published_file_as_it_is(dataset, owner, client_for):
    published = published_eval()
    upload = SimpleUploadedFile("published.csv", published.data)
    response = client_for(owner).post(
        API, {"judgments": upload, "original": "last"}, format="multipart"
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["report"]["aggregated"] is True and body["report"]["embedded"]
    _check_everything_came_in(published, JudgmentSet.objects.get(pk=body["id"]))


def test_the_command_imports_the_published_file_as_it_is(dataset, tmp_path, capsys):
    published = published_eval()
    path = tmp_path / "published.csv"
    path.write_bytes(published.data)
    call_command(
        "import_judgments", "pub", str(path), "--original", "last",
        "--separator", "references=tab",
    )  # fmt: skip
    out = capsys.readouterr().out
    assert "Imported 100 judgments (100 rows) of 5 systems; 20 items created" in out
    assert "Scores already aggregated" in out and "split at a tab, as given" in out
    assert "split at '||||', found in" in out
    _check_everything_came_in(published, JudgmentSet.objects.get())


def test_the_original_first_is_the_default_and_an_original_column_names_it(dataset, owner):
    data = (
        b"system,id,score,refs,original_reply,context\n"
        b"a,c1,4,other one|||the original,the original,hi EOS there\n"
        b"a,c2,2,x|||y,z,bye EOS now\n"
    )
    judgments_import_files(
        dataset=dataset, owner=owner, name="", split="test", files={"judgments": ("f.csv", data)}
    )
    refs = {
        item: [r.text for r in Reference.objects.filter(item__external_id=item)]
        for item in ("c1", "c2")
    }
    assert refs == {"c1": ["the original", "other one"], "c2": ["z", "x", "y"]}
    assert Item.objects.get(external_id="c1").context == ["hi"]


def test_how_many_judges_a_mean_is_over_goes_into_the_report(dataset, owner):
    published = published_eval(systems=2, items=5, n_judges=True)
    imported = judgments_import_files(
        dataset=dataset,
        owner=owner,
        name="",
        split="test",
        files={"judgments": ("p.csv", published.data)},
        options=ReadOptions(original="last"),
    )
    judges = imported.report["judges_per_row"]
    counts = published.judges.values()
    assert judges == {
        "column": "n_judges",
        "min": min(counts),
        "max": max(counts),
        "mean": round(sum(counts) / len(counts), 3),
    }
    assert imported.criteria == ["mean_rating"]  # the count is not a criterion


def test_a_message_column_gives_the_message_and_the_context_keeps_every_turn(dataset, owner):
    data = b'system\tid\tscore\tresponse\tcontext\tmessage\na\tc1\t3\tyo\t["hi", "there"]\thow?\n'
    judgments_import_files(
        dataset=dataset, owner=owner, name="", split="test", files={"judgments": ("f.tsv", data)}
    )
    item = Item.objects.get()
    assert (item.context, item.message) == (["hi", "there"], "how?")


def test_a_cell_of_ten_thousand_separators_is_refused_by_its_row_and_column(dataset, owner):
    bomb = "|||".join(["r"] * 10_001)
    data = (
        "system,id,score,references,context\n"
        f"a,c1,3,one|||two,hi\na,c2,4,{bomb},hello\na,c3,5,x|||y,bye\n"
    ).encode()
    imported = judgments_import_files(
        dataset=dataset, owner=owner, name="", split="test", files={"judgments": ("f.csv", data)}
    )
    problems = [p for p in imported.report["problems"] if p["level"] == "error"]
    assert len(problems) == 1 and problems[0]["line"] == 3
    assert "column 'references'" in problems[0]["message"]
    assert "more than 500 values" in problems[0]["message"]
    assert sorted(Judgment.objects.values_list("external_id", flat=True)) == ["c1", "c3"]
    assert not Item.objects.filter(external_id="c2").exists()


def test_a_file_of_nothing_readable_writes_nothing(dataset, owner):
    data = b"system,id,score,response\n,c1,3,hello\na,,4,hi\n"  # no system; no id
    with pytest.raises(JudgmentsRejected) as refused:
        judgments_import_files(
            dataset=dataset,
            owner=owner,
            name="",
            split="test",
            files={"judgments": ("f.csv", data)},
            columns=None,
        )
    said = refused.value.messages[0]
    assert "f.csv: 2 rows without judge, id, system or score: lines 2, 3" in said
    assert not (JudgmentSet.objects.exists() or Item.objects.exists())
    assert not (EvalSystem.objects.exists() or SystemOutput.objects.exists())


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"system,id,score,score\na,c1,1,2\n", "several criterion columns are named 'score'"),
        (b"system,system,id,score\na,b,c1,1\n", "several columns claim the system"),
        (b"system,id,n_judges,score\na,c1,three,1\n", "'three' is not a number of judges"),
        (b'system,id,score\n"a,c1,1\n', "No judgment could be read"),
    ],
)
def test_hostile_files_are_refused_with_a_message_and_nothing_written(
    dataset, tmp_path, data, says
):
    path = tmp_path / "f.csv"
    path.write_bytes(data)
    with pytest.raises(CommandError, match=says):
        call_command("import_judgments", "pub", str(path))
    assert not (JudgmentSet.objects.exists() or Item.objects.exists())
    assert not EvalSystem.objects.exists()


def test_a_latin1_file_is_read_with_a_warning(dataset, owner):
    data = "system,id,score,response\na,c1,3,déjà vu\n".encode("latin-1")
    imported = judgments_import_files(
        dataset=dataset, owner=owner, name="", split="test", files={"judgments": ("f.csv", data)}
    )
    assert SystemOutput.objects.get().text == "déjà vu"
    assert any("Latin-1" in p["message"] for p in imported.report["problems"])


@pytest.mark.parametrize(
    ("option", "says"),
    [
        ("references=semicolon", "Unknown separator 'semicolon'"),
        ("response=tab", "'response' holds one value a cell"),
        ("references", "expected ROLE=SEPARATOR"),
    ],
)
def test_the_command_refuses_a_bad_separator(dataset, tmp_path, option, says):
    path = tmp_path / "p.csv"
    path.write_bytes(published_eval(systems=1, items=2).data)
    with pytest.raises(CommandError, match=says):
        call_command("import_judgments", "pub", str(path), "--separator", option)
    assert not JudgmentSet.objects.exists()


def test_the_api_refuses_a_bad_separator_with_a_400(dataset, owner, client_for):
    upload = SimpleUploadedFile("p.csv", published_eval(systems=1, items=2).data)
    response = client_for(owner).post(
        API, {"judgments": upload, "separators": '{"references": "?"}'}, format="multipart"
    )
    assert response.status_code == 400 and "Unknown separator '?'" in response.json()["detail"]
    assert not JudgmentSet.objects.exists()


def test_a_column_per_criterion_goes_with_the_new_roles(dataset, owner):
    data = (
        b"system,id,relevance,fluency,response,refs,context\n"
        b"a,c1,4,5,hi you,r1|||r2,hello\nb,c1,2,3,yo,r1|||r2,hello\n"
    )
    imported = judgments_import_files(
        dataset=dataset, owner=owner, name="", split="test", files={"judgments": ("f.csv", data)}
    )
    assert imported.criteria == ["relevance", "fluency"] and imported.report["aggregated"]
    scores = {(j.system.name, j.criterion): j.score for j in Judgment.objects.all()}
    assert scores == {("a", "relevance"): 4, ("a", "fluency"): 5, ("b", "relevance"): 2,
                      ("b", "fluency"): 3}  # fmt: skip
    assert SystemOutput.objects.get(system__name="b").text == "yo"


def test_a_column_per_system_is_read_when_said(dataset, owner, tmp_path, capsys):
    data = (
        b"judge,id,seq2seq,hred,context\n"
        b"j1,c1,4,2,hi EOS there\nj2,c1,5,1,hi EOS there\nj1,c2,3,3,bye\n"
    )
    path = tmp_path / "wide.csv"
    path.write_bytes(data)
    with pytest.raises(CommandError, match="no column is the system"):
        call_command("import_judgments", "pub", str(path))
    call_command("import_judgments", "pub", str(path), "--wide", "systems")
    imported = JudgmentSet.objects.get()
    assert imported.criteria == ["score"] and not imported.report["aggregated"]
    scores = {(j.judge, j.external_id, j.system.name): j.score for j in Judgment.objects.all()}
    assert scores == {
        ("j1", "c1", "seq2seq"): 4, ("j1", "c1", "hred"): 2, ("j2", "c1", "seq2seq"): 5,
        ("j2", "c1", "hred"): 1, ("j1", "c2", "seq2seq"): 3, ("j1", "c2", "hred"): 3,
    }  # fmt: skip
    assert Item.objects.get(external_id="c1").context == ["hi"]
    assert not SystemOutput.objects.exists()


def test_per_judge_rows_of_a_wide_file_without_a_judge_column_are_asked_about(dataset, owner):
    data = b"id,seq2seq,hred\nc1,4,2\nc1,5,1\n"
    with pytest.raises(ColumnsUnsure, match="no column is the judge, yet item 'c1' comes twice"):
        judgments_import_files(
            dataset=dataset,
            owner=owner,
            name="",
            split="test",
            files={"judgments": ("w.csv", data)},
            options=ReadOptions(wide="systems"),
        )
    assert not JudgmentSet.objects.exists()


def test_separate_files_stand_for_the_judgments_file_s_own_columns(dataset, owner):
    bomb = "|||".join(["r"] * 10_001)
    data = f"system,id,score,references\na,c1,3,{bomb}\n".encode()
    contexts = b"id\tcontext\nc1\thello\n"
    refs = b"c1\tfrom the file\n"
    imported = judgments_import_files(
        dataset=dataset,
        owner=owner,
        name="",
        split="test",
        files={"judgments": ("f.csv", data), "contexts": ("c.tsv", contexts),
               "references": ("r.tsv", refs)},
    )  # fmt: skip
    assert imported.report["errors"] == 0 and imported.report["embedded"] == []
    assert [r.text for r in Reference.objects.all()] == ["from the file"]


def test_the_separate_files_know_the_original_and_message_columns_too():
    refs = parse_references(b"id\tref_a\toriginal\nc1\tanother\tthe original\n")
    assert refs.items["c1"] == ["the original", "another"]
    contexts = parse_contexts(b"id\tcontext\tmessage\nc1\thi EOS there\thow are you?\n")
    assert contexts.items["c1"] == (["hi", "there"], "how are you?")
