"""The run engine's test kit: a kind registered for the test, the broker's accepted messages,
and helpers to start a run and see what it left behind."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from core.runs import kinds
from core.runs.context import RunContext
from core.runs.engine import run_create
from core.runs.kinds import LIGHT_QUEUE, RunKind
from core.runs.models import Run
from core.runs.tempfiles import run_storage_folder, tmp_folder

SEEN: list[tuple[int, int]] = []


def _body(run: RunContext) -> dict:
    """What the test kind does, by its params: work in steps, fail, or leave files behind."""
    SEEN.append((run.run_id, run.attempt))
    (run.tmpdir / "scratch").write_text("partial")
    default_storage.save(f"{run_storage_folder(run.run_id, run.attempt)}/part", ContentFile(b"x"))
    if run.params.get("fail"):
        raise RuntimeError(run.params["fail"])
    with run.stage("work"):
        for step in range(1, 4):
            run.progress(step, 3, f"step {step}")
    return {"steps": 3}


ENDED: list[str] = []
TEST_KIND = RunKind(
    name="test-kind",
    body=_body,
    weight=LIGHT_QUEUE,
    grace=timedelta(seconds=30),
    refusals=(ValueError,),
    on_end=lambda run: ENDED.append(run.state),
)


@pytest.fixture
def test_kind(settings, tmp_path, monkeypatch):
    # Registered for this test only: the registry lists the product's kinds.
    monkeypatch.setitem(kinds._KINDS, TEST_KIND.name, TEST_KIND)
    settings.RUNS_TMP_DIR = tmp_path / "runs"
    settings.MEDIA_ROOT = str(tmp_path / "media")
    SEEN.clear()
    ENDED.clear()


@pytest.fixture
def sent(monkeypatch):
    """The messages the broker accepted: (run id, attempt, queue, countdown)."""
    messages = []

    def accept(args, countdown=None, queue=None):
        messages.append((*args, queue, countdown))

    monkeypatch.setattr("core.runs.tasks.execute_run_task.apply_async", accept)
    return messages


def new_run(owner, django_capture_on_commit_callbacks, **params) -> Run:
    with django_capture_on_commit_callbacks(execute=True):
        return run_create(kind="test-kind", owner=owner, params=params, scope="thing:1")


def leftovers(run_id: int, attempt: int) -> list[str]:
    local = tmp_folder(run_id, attempt)
    stored = default_storage.exists(f"{run_storage_folder(run_id, attempt)}/part")
    return [name for name, there in (("local", local.exists()), ("stored", stored)) if there]
