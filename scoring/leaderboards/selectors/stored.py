"""Reads of what was stored for a submission: its uploaded file, and its per-item statistics
(written by `scoring.leaderboards.services.references.save_matrix`)."""

from __future__ import annotations

import io

import numpy as np
from django.core.files.storage import default_storage

from scoring.leaderboards.models import Submission
from scoring.leaderboards.submission_files import parse_submission


def submission_hypotheses(submission: Submission, item_ids: list[str]) -> list[str]:
    with submission.file.open("rb") as handle:
        hyps, _ = parse_submission(handle, item_ids, submission.format)
    return hyps


def load_matrix(name: str) -> np.ndarray:
    with default_storage.open(name, "rb") as handle:
        return np.load(io.BytesIO(handle.read()), allow_pickle=False)
