"""Management commands: import, export, demo, invitations."""

import errno
import io
import os

import pytest
from django.core.management import CommandError, call_command

from annotate.accounts.models import Invitation
from annotate.datasets.models import Dataset, Item
from annotate.datasets.services.demo import DEMO_FILE, DEMO_SLUG
from tests.conftest import DATA

pytestmark = pytest.mark.django_db


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_import_creates_the_dataset_and_export_round_trips(owner, tmp_path):
    out, _ = run(
        "import_dataset", "chat", str(DATA / "small.jsonl"), "--create", "Chat", "--owner", "owner"
    )
    assert "Imported 3 items, 6 references" in out
    run("export_dataset", "chat", "--out", str(tmp_path / "x.jsonl"))
    assert (tmp_path / "x.jsonl").read_bytes() == (DATA / "small.jsonl").read_bytes()


def test_import_prints_every_problem_and_writes_nothing(owner):
    err = io.StringIO()
    with pytest.raises(CommandError, match="7 problems"):
        call_command(
            "import_dataset",
            "chat",
            str(DATA / "bad.jsonl"),
            "--create",
            "Chat",
            "--owner",
            "owner",
            stderr=err,
        )
    assert "bad.jsonl: line 3: not valid JSON" in err.getvalue()
    assert not Item.objects.exists()
    assert not Dataset.objects.exists()


def test_one_problem_reads_as_one_and_create_asks_for_its_owner(owner, tmp_path):
    bad = tmp_path / "one.jsonl"
    good = (DATA / "small.jsonl").read_text().splitlines()[0]
    bad.write_text(f"{good}\nnot json\n")
    with pytest.raises(CommandError, match=r"^a problem; nothing was imported\.$"):
        run("import_dataset", "chat", str(bad), "--create", "Chat", "--owner", "owner")
    # It said "--owner: no user None."
    with pytest.raises(CommandError, match="--create needs --owner USER"):
        run("import_dataset", "chat", str(DATA / "small.jsonl"), "--create", "Chat")


@pytest.mark.parametrize(
    "args, message",
    [
        (["import_dataset", "chat", str(DATA / "small.jsonl"), "--create", "Chat"], "--owner"),
        (["create_dataset", "chat", "--name", "Chat"], "--owner"),
        (["import_release", str(DATA / "small.jsonl")], "--owner"),
        (["create_invitation"], "--by"),
    ],
)
def test_a_command_names_the_option_of_a_user_that_does_not_exist(owner, args, message):
    with pytest.raises(CommandError, match=f"^{message}: no user 'nobody'.$"):
        run(*args, message, "nobody")
    assert not Dataset.objects.exists() and not Invitation.objects.exists()


def test_import_into_a_missing_dataset_says_how_to_create_it():
    with pytest.raises(CommandError, match="--create"):
        run("import_dataset", "nope", str(DATA / "small.jsonl"))


def test_import_of_a_missing_file():
    with pytest.raises(CommandError, match="no such file"):
        run("import_dataset", "nope", "/no/such.jsonl")


def test_import_of_a_directory_is_one_line(owner, tmp_path):
    with pytest.raises(CommandError, match=r"is a directory, not a file\.$"):
        run("import_dataset", "chat", str(tmp_path), "--create", "Chat", "--owner", "owner")
    assert not Dataset.objects.exists()


@pytest.fixture
def chat(owner):
    run("import_dataset", "chat", str(DATA / "small.jsonl"), "--create", "Chat", "--owner", "owner")


def test_export_to_a_directory_or_a_missing_folder_is_refused_before_writing(chat, tmp_path):
    with pytest.raises(CommandError, match=r"^--out: .* is a directory; name a file in it\.$"):
        run("export_dataset", "chat", "--out", str(tmp_path))
    with pytest.raises(CommandError, match=r"^--out: no folder .*nodir to write x.jsonl in\.$"):
        run("export_dataset", "chat", "--out", str(tmp_path / "nodir" / "x.jsonl"))
    assert list(tmp_path.iterdir()) == []


def test_export_to_a_full_disk_is_one_line_and_leaves_no_partial_file(chat, tmp_path, monkeypatch):
    from core import command_args

    class FullDisk(io.StringIO):
        def write(self, text):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def full_disk(descriptor, *args, **kwargs):
        os.close(descriptor)
        return FullDisk()

    monkeypatch.setattr(command_args, "open", full_disk, raising=False)
    with pytest.raises(CommandError, match="No space left on device; nothing was written"):
        run("export_dataset", "chat", "--out", str(tmp_path / "x.jsonl"))
    assert list(tmp_path.iterdir()) == []


def test_a_rater_owns_no_dataset_made_by_a_command(rater):
    # The API and the page refuse them the same way (tests/annotate/test_dataset_api.py).
    with pytest.raises(CommandError, match=r"^Only researchers can create datasets\.$"):
        run("create_dataset", "mine", "--name", "Mine", "--owner", "rater")
    with pytest.raises(CommandError, match=r"^Only researchers can create datasets\.$"):
        run(
            "import_dataset", "mine", str(DATA / "small.jsonl"), "--create", "Mine",
            "--owner", "rater",
        )  # fmt: skip
    assert not Dataset.objects.exists()


def test_load_demo_refuses_production_unless_told(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="publicly known passwords"):
        run("load_demo")
    assert not Dataset.objects.exists()


def test_the_demos_first_chapter_is_idempotent():
    # The whole story (and `load_demo` itself) is tested in tests/annotate/test_demo_fixture.py.
    from annotate.datasets.services.demo import demo_load

    logins = demo_load()
    assert ("admin", "deltableu-demo", "staff") in logins
    demo_load()
    dataset = Dataset.objects.get(slug=DEMO_SLUG)
    assert dataset.visibility == "public"
    lines = DEMO_FILE.read_text().splitlines()
    assert Item.objects.filter(split__dataset=dataset).count() == len(lines) == 30


def test_create_invitation_prints_a_link(owner):
    out, _ = run("create_invitation", "--by", "owner", "--uses", "5")
    assert out.startswith("http://127.0.0.1:8000/invite/")
    assert Invitation.objects.get().max_uses == 5


def test_create_invitation_refused_by_the_service_is_one_line(owner):
    with pytest.raises(CommandError, match=r"^Only staff can invite researchers\.$"):
        run("create_invitation", "--by", "owner", "--role", "researcher")
    with pytest.raises(CommandError, match=r"^Use a number from 1 to 10,000\.$"):
        run("create_invitation", "--by", "owner", "--uses", "0")
    assert not Invitation.objects.exists()
