"""`manage.py submit`: bad arguments end in one line before anything is queued or charged.

(Submitting and waiting for the scores, through a real worker, is tested in
tests/integration/test_submit_clients.py.)"""

import itertools

import pytest
from django.core.management import CommandError, call_command

from scoring.leaderboards.management.commands import submit
from scoring.leaderboards.models import Submission

pytestmark = pytest.mark.django_db
GOOD = "the cat sat on a mat\nwhat a great match\nsee you then\ni love cheese pizza\n"


@pytest.fixture
def board(make_leaderboard):
    return make_leaderboard()


@pytest.fixture
def outputs(tmp_path):
    path = tmp_path / "outputs.txt"
    path.write_text(GOOD)
    return path


def submit_args(board, path, *extra):
    return ["submit", "--leaderboard", board.slug, "--file", str(path), "--user", "other", *extra]


@pytest.mark.parametrize("timeout", ["0", "-5", "nan", "inf", "0.5", "86401"])
def test_a_timeout_out_of_range_is_refused_before_anything_is_queued(
    board, other, outputs, timeout, monkeypatch
):
    def wait(*args):
        raise AssertionError("the submission was queued, and waited for")

    monkeypatch.setattr(submit.Command, "_wait", wait)
    with pytest.raises(CommandError, match=r"^--timeout must be 1 … 86,400; .* is not\.$"):
        call_command(*submit_args(board, outputs, "--wait", "--timeout", timeout))
    assert not Submission.objects.exists()


def test_an_unknown_leaderboard_or_user_is_named_by_its_option(board, other, outputs):
    # It said "No such leaderboard or user." for either.
    args = submit_args(board, outputs)
    with pytest.raises(CommandError, match=r"^--leaderboard: no leaderboard 'nope'\.$"):
        call_command(*[("nope" if a == board.slug else a) for a in args])
    with pytest.raises(CommandError, match=r"^--user: no user 'nobody'\.$"):
        call_command(*[("nobody" if a == "other" else a) for a in args])
    assert not Submission.objects.exists()


def test_a_directory_is_not_a_file_to_submit(board, other, tmp_path):
    with pytest.raises(CommandError, match=r"^--file: .* is a directory, not a file\.$"):
        call_command(*submit_args(board, tmp_path))
    assert not Submission.objects.exists()


def test_waiting_past_the_timeout_says_how_the_submission_stands(
    board, other, outputs, monkeypatch
):
    monkeypatch.setattr(submit, "POLL_SECONDS", 0.01)
    # A slow machine: the deadline has passed by the first look. (That look never happened,
    # and the command ended in an UnboundLocalError.)
    clock = itertools.count(0, 10)
    monkeypatch.setattr(submit.time, "monotonic", lambda: next(clock))
    # Nothing scores it here (the run is sent on commit, and this test never commits).
    with pytest.raises(CommandError, match=r"^Submission \d+ still queued after 2 s\.$"):
        call_command(*submit_args(board, outputs, "--wait", "--timeout", "2"))
    assert Submission.objects.get().status == "queued"


def test_a_submission_deleted_while_waited_for_ends_the_wait_in_one_line(
    board, other, outputs, monkeypatch
):
    monkeypatch.setattr(submit, "POLL_SECONDS", 0.01)

    def deleted(*, submission_id):  # the board's owner deleted it meanwhile
        Submission.objects.filter(pk=submission_id).delete()
        return None

    monkeypatch.setattr(submit, "submission_by_id", deleted)
    with pytest.raises(CommandError, match=r"^Submission \d+ was deleted while scored\.$"):
        call_command(*submit_args(board, outputs, "--wait", "--timeout", "2"))
