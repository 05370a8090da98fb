"""The two command-line ways to submit, through a live server and a real worker."""

import subprocess
import sys

import pytest
from django.core.management import CommandError, call_command
from rest_framework.authtoken.models import Token

from scoring.leaderboards.models import Submission

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
GOOD = "the cat sat on a mat\nwhat a great match\nsee you then\ni love cheese pizza\n"


def client_submit(live_server, token, board, outputs, *extra) -> list[str]:
    """The command line of `scoring.leaderboards.client submit` for this server, token, board
    and file."""
    return [
        sys.executable,
        "-m",
        "scoring.leaderboards.client",
        "submit",
        "--url",
        live_server.url,
        "--token",
        token,
        "--leaderboard",
        board.slug,
        "--file",
        str(outputs),
        *extra,
    ]


def test_the_participant_client_submits_and_waits(
    celery_worker_process, live_server, make_leaderboard, other, tmp_path
):
    board = make_leaderboard()
    token = Token.objects.create(user=other).key
    outputs = tmp_path / "outputs.txt"
    outputs.write_text(GOOD)
    command = client_submit(live_server, token, board, outputs, "--wait", "--timeout", "120")
    result = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr
    assert "dbleu|def:paper" in result.stdout and "95% CI" in result.stdout
    assert Submission.objects.get().status == "finished"


def test_the_client_lists_every_problem_of_a_bad_file(
    live_server, make_leaderboard, other, tmp_path
):
    board = make_leaderboard()
    token = Token.objects.create(user=other).key
    outputs = tmp_path / "bad.txt"
    outputs.write_bytes(b"one\ntwo\x00\n")
    command = client_submit(live_server, token, board, outputs)
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "bad.txt: line 2: contains a NUL byte" in result.stderr
    assert "the file has 2 lines; the leaderboard has 4 items" in result.stderr
    assert not Submission.objects.exists()


def test_the_management_command_submits_and_waits(
    celery_worker_process, make_leaderboard, other, tmp_path, capsys
):
    board = make_leaderboard()
    outputs = tmp_path / "outputs.txt"
    outputs.write_text(GOOD)
    call_command(
        "submit",
        "--leaderboard",
        board.slug,
        "--file",
        str(outputs),
        "--user",
        "other",
        "--wait",
        "--timeout",
        "120",
    )
    assert "dbleu|def:paper" in capsys.readouterr().out
    bad = tmp_path / "bad.txt"
    bad.write_text("only one\n")
    with pytest.raises(CommandError, match="not accepted"):
        call_command("submit", "--leaderboard", board.slug, "--file", str(bad), "--user", "other")


def test_the_client_refuses_a_file_over_the_boards_limit_naming_it(
    live_server, make_leaderboard, other, tmp_path
):
    board = make_leaderboard(max_upload_bytes=1024)
    token = Token.objects.create(user=other).key
    outputs = tmp_path / "huge.txt"
    outputs.write_text(GOOD * 40)  # 2.9 KB
    result = subprocess.run(
        client_submit(live_server, token, board, outputs),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "the file is 2.9 KB; this leaderboard accepts files up to 1 KB" in result.stderr
    assert "nothing was uploaded" in result.stderr
    assert not Submission.objects.exists()
