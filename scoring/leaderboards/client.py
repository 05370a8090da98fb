"""A small command-line client for participants (standard library only).

    python -m scoring.leaderboards.client submit --url https://studio.example.org --token KEY \\
        --leaderboard dialogue-dev --file outputs.txt --method "my system" --wait

Uploads through the REST API, prints every problem of a rejected file with its line, and with
--wait follows the scoring and prints each score with its signature. The token is on the
account page (or set DELTABLEU_TOKEN).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import uuid
from pathlib import Path
from urllib.error import HTTPError
from urllib.request import Request, urlopen

POLL_SECONDS = 1.0
ACTIVE = ("submitted", "queued", "running")


def _state(answer: dict) -> str:
    """The submission's state in the runs' words; a server older than `state` said it in the
    deprecated `status`, where "finished" stood for "succeeded"."""
    state = answer.get("state") or answer.get("status", "")
    return "succeeded" if state == "finished" else state


def _multipart(fields: dict[str, str], file_path: Path) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in fields.items():
        head = f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
        parts.append(f"{head}{value}\r\n".encode())
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
        f'filename="{file_path.name}"\r\nContent-Type: application/octet-stream\r\n\r\n'.encode()
        + file_path.read_bytes()
        + b"\r\n"
    )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def _call(request: Request) -> tuple[int, dict]:
    try:
        with urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read() or b"{}")
    except HTTPError as exc:
        body = exc.read()
        try:
            return exc.code, json.loads(body)
        except json.JSONDecodeError:
            return exc.code, {"detail": body.decode(errors="replace")[:500]}


def _size(n_bytes: int) -> str:
    # The server words its refusal the same way (submission_files.size_text); this file stays
    # standard library only, so participants can copy it alone.
    for unit, scale in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{n_bytes} bytes"


def _too_large(base: str, headers: dict[str, str], args: argparse.Namespace) -> str:
    """Why the file is over the board's upload limit, asked before uploading it ("" if not,
    or if the board cannot be read: the server checks again)."""
    status, board = _call(
        Request(f"{base}/api/v1/leaderboards/{args.leaderboard}/", headers=headers)
    )
    limit = board.get("leaderboard", {}).get("max_upload_bytes") if status == 200 else None
    size = args.file.stat().st_size
    if not isinstance(limit, int) or size <= limit:
        return ""
    return f"the file is {_size(size)}; this leaderboard accepts files up to {_size(limit)}"


def submit(args: argparse.Namespace) -> int:
    base = args.url.rstrip("/")
    if not base.startswith(("http://", "https://")):
        print("error: --url must start with http:// or https://", file=sys.stderr)
        return 2
    headers = {"Authorization": f"Token {args.token}", "Accept": "application/json"}
    too_large = _too_large(base, headers, args)
    if too_large:
        print(f"error: {args.file}: {too_large}; nothing was uploaded.", file=sys.stderr)
        return 1
    fields = {"method": args.method or args.file.stem, "team": args.team}
    body, content_type = _multipart(fields, args.file)
    request = Request(
        f"{base}/api/v1/leaderboards/{args.leaderboard}/submissions/",
        data=body,
        headers={**headers, "Content-Type": content_type},
        method="POST",
    )
    status, answer = _call(request)
    if status != 201:
        print(f"error: {answer.get('detail', answer)}", file=sys.stderr)
        for problem in answer.get("problems", []):
            where = f"line {problem['line']}: " if problem.get("line") else ""
            print(f"{args.file}: {where}{problem['message']}", file=sys.stderr)
        return 1
    print(f"Submission {answer['id']} queued.")
    if not args.wait:
        return 0
    url = f"{base}/api/v1/submissions/{answer['id']}/"
    deadline = time.monotonic() + args.timeout
    said = ""
    while _state(answer) in ACTIVE and time.monotonic() < deadline:
        time.sleep(POLL_SECONDS)
        _, answer = _call(Request(url, headers=headers))
        waiting = answer.get("waiting_reason", "")
        if waiting and waiting != said:  # why it waits (no worker for its queue), once
            print(f"\n{waiting}", file=sys.stderr)
            said = waiting
        print(f"\r{_state(answer)} {answer['progress']}%", end="", file=sys.stderr)
    print(file=sys.stderr)
    if _state(answer) != "succeeded":
        print(f"error: submission {_state(answer)}: {answer.get('error', '')}", file=sys.stderr)
        return 1
    for score in answer["scores"]:
        interval = f"[95% CI {score['ci_low']:.2f}, {score['ci_high']:.2f}]"
        print(f"{score['signature']} = {score['score']:.2f} {interval}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scoring.leaderboards.client")
    commands = parser.add_subparsers(dest="command", required=True)
    sub = commands.add_parser("submit", help="upload a system output to a leaderboard")
    sub.add_argument("--url", default=os.environ.get("DELTABLEU_URL", "http://127.0.0.1:8000"))
    sub.add_argument("--token", default=os.environ.get("DELTABLEU_TOKEN", ""))
    sub.add_argument("--leaderboard", required=True)
    sub.add_argument("--file", required=True, type=Path)
    sub.add_argument("--method", default="")
    sub.add_argument("--team", default="")
    sub.add_argument("--wait", action="store_true")
    sub.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args(argv)
    if not args.token:
        parser.error("give --token (or set DELTABLEU_TOKEN); it is on your account page")
    if not args.file.exists():
        parser.error(f"{args.file}: no such file")
    return submit(args)


if __name__ == "__main__":
    sys.exit(main())
