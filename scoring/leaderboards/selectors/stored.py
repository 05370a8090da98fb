"""Reads of what was stored for a submission: its uploaded file, and its per-item statistics
(written by `scoring.leaderboards.services.references.save_matrix`)."""

from __future__ import annotations

import io
import shutil
import tempfile
from pathlib import Path

import numpy as np
from django.conf import settings
from django.core.files.storage import default_storage

from core.lines import file_lines
from scoring.leaderboards.models import Submission
from scoring.leaderboards.submission_files import parse_submission
from scoring.metrics import WeightProfile


def submission_hypotheses(submission: Submission, item_ids: list[str]) -> list[str]:
    with submission.file.open("rb") as handle:
        hyps, _ = parse_submission(file_lines(handle), item_ids, submission.format)
    return hyps


def load_matrix(name: str) -> np.ndarray:
    with default_storage.open(name, "rb") as handle:
        return np.load(io.BytesIO(handle.read()), allow_pickle=False)


def load_profile(name: str) -> WeightProfile:
    """A stored weight profile, read whole (its checksum verified) from a local copy."""
    Path(settings.RUNS_TMP_DIR).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=settings.RUNS_TMP_DIR) as folder:
        local = Path(folder) / "profile"
        with default_storage.open(name, "rb") as stored, local.open("wb") as out:
            shutil.copyfileobj(stored, out, length=1 << 20)
        # Its arrays map the file, and a mapping outlives the file's name (POSIX).
        return WeightProfile.load(local)
