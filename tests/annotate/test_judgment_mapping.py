"""The mapping step when columns cannot be told apart: on the page (the upload staged between
the two steps), in the API (`columns`, a 400 with the preview) and on the command line
(`--column`); who may use it; hostile input answered with a message, never a 500, nothing
half-written."""

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from annotate.datasets.models import Item
from annotate.judgments.models import EvalSystem, Judgment, JudgmentSet

pytestmark = pytest.mark.django_db

UNSURE = b"Rater#\tCtx\tSys\tRel\tInf\nr1\tc1\tmt\t4\t3\nr2\tc1\tmt\t5\t2\nr1\tc2\tmt\t2\t2\n"
CONTEXTS = b"\xef\xbb\xbfInstanceID\tDepth\tContext\nc1\t1\thello\nc2\t1\tbye\n"
PAGE = "/datasets/he/judgments/import/"
COLUMNS_PAGE = "/datasets/he/judgments/import/columns/"
API = "/api/v1/datasets/he/judgments/"
PREVIEW_API = "/api/v1/datasets/he/judgments/preview/"


@pytest.fixture
def dataset(make_dataset):
    return make_dataset(slug="he", data=None)


def _upload(judgments=UNSURE, name="j.tsv", **extra):
    files = {
        "judgments": SimpleUploadedFile(name, judgments),
        "contexts": SimpleUploadedFile("contexts.tsv", CONTEXTS),
    }
    return {**files, "split": "test", **extra}


def _nothing_written():
    return not (
        JudgmentSet.objects.exists() or Item.objects.exists() or EvalSystem.objects.exists()
    )


def _selects(page: str) -> dict[str, str]:
    """name → the selected option of each select on the page."""
    found = {}
    for name, body in re.findall(r'<select name="([^"]+)"[^>]*>(.*?)</select>', page, re.S):
        chosen = re.search(r'<option value="([^"]+)" selected>', body)
        found[name] = chosen.group(1) if chosen else ""
    return found


def _hidden(page: str, name: str) -> str:
    return re.search(rf'name="{name}" value="([^"]*)"', page).group(1)


def test_the_page_asks_which_column_is_what_and_imports_as_confirmed(dataset, owner, client_for):
    client = client_for(owner)
    first = client.post(PAGE, _upload(name="paper"))
    page = first.content.decode()
    assert first.status_code == 200 and 'id="columns-form"' in page
    assert "no column is the item" in page and "<td>r1</td>" in page  # the first rows
    selects = _selects(page)
    assert selects["judgments-3"] == "system" and selects["judgments-1"] == "ignore"
    assert selects["contexts-1"] == "item"  # a sure file is shown as read
    assert _nothing_written()
    choice = {**selects, "judgments-1": "judge", "judgments-2": "item"}
    token = _hidden(page, "token")
    done = client.post(COLUMNS_PAGE, {**choice, "token": token, "split": "test", "name": "paper"})
    imported = JudgmentSet.objects.get()
    assert done.url == f"/judgments/{imported.pk}/" and imported.name == "paper"
    assert imported.criteria == ["Rel", "Inf"]
    assert Judgment.objects.filter(judge="r2", external_id="c1", criterion="Rel").get().score == 5
    # The staged files went with the import: the token names nothing any more.
    again = client.post(COLUMNS_PAGE, {**choice, "token": token, "split": "test"})
    assert again.status_code == 302 and again.url == PAGE and JudgmentSet.objects.count() == 1


def test_the_page_keeps_asking_while_a_role_is_missing_or_doubled(dataset, owner, client_for):
    client = client_for(owner)
    page = client.post(PAGE, _upload()).content.decode()
    token, selects = _hidden(page, "token"), _selects(page)
    fields = {**selects, "token": token, "split": "test"}
    doubled = client.post(COLUMNS_PAGE, {**fields, "judgments-1": "system"})
    assert (
        doubled.status_code == 400
        and "only one column can be the system" in doubled.content.decode()
    )
    missing = client.post(COLUMNS_PAGE, {**fields, "judgments-1": "judge"})
    assert missing.status_code == 400 and "no column is the item" in missing.content.decode()
    tampered = client.post(COLUMNS_PAGE, {**fields, "judgments-1": "../../etc"})
    assert tampered.status_code == 400
    assert _nothing_written()


def test_a_forged_or_foreign_token_stages_nothing(dataset, owner, staff, client_for):
    page = client_for(owner).post(PAGE, _upload()).content.decode()
    token = _hidden(page, "token")
    for client, forged in [(client_for(owner), token[:-2] + "xx"), (client_for(staff), token)]:
        answer = client.post(COLUMNS_PAGE, {**_selects(page), "token": forged, "split": "test"})
        assert answer.status_code == 302 and answer.url == PAGE
    assert _nothing_written()


def test_the_api_answers_an_unsure_guess_with_the_preview_then_imports_with_columns(
    dataset, owner, client_for
):
    client = client_for(owner)
    refused = client.post(API, _upload(), format="multipart")
    assert refused.status_code == 400
    body = refused.json()
    assert "no column is the item" in body["detail"] and "nothing was written" in body["detail"]
    judgments = body["preview"]["files"]["judgments"]
    assert judgments["missing"] == ["item"] and judgments["header"][0] == "Rater#"
    assert judgments["rows"][0] == ["r1", "c1", "mt", "4", "3"] and not body["preview"]["sure"]
    assert _nothing_written()
    columns = json.dumps({"judge": "Rater#", "item": 2, "criterion": ["Rel", "Inf"]})
    done = client.post(API, _upload(columns=columns), format="multipart")
    assert done.status_code == 201, done.json()
    assert done.json()["criteria"] == ["Rel", "Inf"] and done.json()["report"]["rows"] == 3


def test_the_preview_operation_writes_nothing(dataset, owner, client_for):
    answer = client_for(owner).post(PREVIEW_API, _upload(), format="multipart")
    assert answer.status_code == 200 and answer.json()["sure"] is False
    assert answer.json()["files"]["contexts"]["sure"] is True
    mapped = client_for(owner).post(
        PREVIEW_API, _upload(columns='{"judge": 1, "item": 2}'), format="multipart"
    )
    assert mapped.json()["sure"] is True and _nothing_written()


@pytest.mark.parametrize(
    ("columns", "says"),
    [
        ("{not json", "columns: not valid JSON"),
        ('["judge"]', "expected a JSON object"),
        ('{"jduge": "Rater#"}', "Unknown column role 'jduge'"),
        ('{"judge": "Nobody"}', "no column 'Nobody'"),
        ('{"judge": {"a": 1}}', "a column is a header name or a number"),
        ('{"judge": "' + "x" * 20000 + '"}', "longer than"),
    ],
)
def test_the_api_refuses_a_bad_mapping_with_a_message(dataset, owner, client_for, columns, says):
    answer = client_for(owner).post(API, _upload(columns=columns), format="multipart")
    assert answer.status_code == 400 and says in answer.json()["detail"]
    assert answer.json()["problems"] == [] and _nothing_written()


def test_the_command_maps_columns_and_names_what_is_wrong(dataset, tmp_path, capsys):
    path = tmp_path / "j.tsv"
    path.write_bytes(UNSURE)
    with pytest.raises(CommandError, match="no column is the item"):
        call_command("import_judgments", "he", str(path))
    assert "judgments (j.tsv): 1:Rater#=ignore" in capsys.readouterr().err
    for option, says in [
        ("jduge=Rater#", "'jduge'"),
        ("judge=Nobody", "'Nobody'"),
        ("judge", "expected ROLE=COLUMN"),
    ]:
        with pytest.raises(CommandError, match=re.escape(says)) as refused:
            call_command("import_judgments", "he", str(path), "--column", option)
        assert "\n" not in str(refused.value)
    assert _nothing_written()
    call_command(
        "import_judgments", "he", str(path), "--column", "judge=Rater#", "--column", "item=Ctx"
    )
    assert "Imported 6 judgments (3 rows)" in capsys.readouterr().out
    assert JudgmentSet.objects.get().criteria == ["Rel", "Inf"]


def test_the_command_names_a_missing_file_or_a_directory(dataset, tmp_path):
    with pytest.raises(CommandError, match="nope.tsv: no such file"):
        call_command("import_judgments", "he", str(tmp_path / "nope.tsv"))
    judgments = tmp_path / "judgments.tsv"
    judgments.write_text("judge\tid\tsystem\tRel\n")
    with pytest.raises(CommandError, match="--systems: .* is a directory, not a file"):
        call_command("import_judgments", "he", str(judgments), "--systems", str(tmp_path))


def test_only_the_owner_reaches_the_new_steps(dataset, owner, other, rater, client_for):
    page = client_for(owner).post(PAGE, _upload()).content.decode()
    fields = {**_selects(page), "token": _hidden(page, "token"), "split": "test"}
    for user in (other, rater):
        assert client_for(user).post(COLUMNS_PAGE, fields).status_code == 404
        assert client_for(user).post(PREVIEW_API, _upload(), format="multipart").status_code == 404
    anonymous = client_for(None)
    assert anonymous.post(COLUMNS_PAGE, fields).status_code == 302  # to the sign-in page
    assert anonymous.post(PREVIEW_API, _upload()).status_code in (401, 403)
    assert client_for(owner).get(COLUMNS_PAGE).status_code == 405
    assert _nothing_written()


def test_a_public_dataset_is_still_the_owners_to_map(make_dataset, other, client_for):
    make_dataset(slug="open", visibility="public", data=None)
    answer = client_for(other).post(
        "/api/v1/datasets/open/judgments/preview/", _upload(), format="multipart"
    )
    assert answer.status_code == 403
    assert client_for(other).post("/datasets/open/judgments/import/columns/").status_code == 403


def test_hostile_files_are_answered_with_messages(dataset, owner, client_for, settings):
    client = client_for(owner)
    nul = b"judge\tid\tsystem\tq\nj1\tc1\tmt\t4\nj\x00\tc2\tmt\t3\n"
    ok = client.post(API, _upload(nul, name="../../etc/passwd"), format="multipart")
    assert ok.status_code == 201
    report = ok.json()["report"]
    assert any("NUL byte" in p["message"] and p["line"] == 3 for p in report["problems"])
    assert ".." not in ok.json()["name"]
    long_id = b"judge\tid\tsystem\tq\nj1\t" + b"x" * 300 + b"\tmt\t4\n"
    refused = client.post(API, _upload(long_id), format="multipart")
    messages = [p["message"] for p in refused.json()["problems"]]
    assert refused.status_code == 400 and "the id is longer than 200 characters" in messages
    settings.IMPORT_MAX_BYTES = 50
    big = client.post(API, _upload(UNSURE * 3), format="multipart")
    assert big.status_code == 400 and "larger than" in big.json()["detail"]
    page = client.post(PAGE, _upload(UNSURE * 3))
    assert page.status_code == 200 and "larger than" in page.content.decode()
    assert JudgmentSet.objects.count() == 1


def test_a_binary_file_is_refused_whole(dataset, owner, client_for):
    noise = bytes(range(256)) * 40
    answer = client_for(owner).post(API, _upload(noise, name="j.bin"), format="multipart")
    assert answer.status_code == 400 and "nothing was written" in answer.json()["detail"]
    assert _nothing_written()
