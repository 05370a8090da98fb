"""The leaderboard as data: one payload for the API and the JSON export, flattened for CSV."""

from __future__ import annotations

from typing import Any

from core.tabular import csv_text
from scoring.leaderboards.api.serializers import LeaderboardDetailSerializer
from scoring.leaderboards.selectors.leaderboard_table import LeaderboardTable
from scoring.leaderboards.selectors.raters import METHOD as STABILITY_METHOD

CSV_FIELDS = [
    "position", "group", "submission", "team", "method", "is_baseline", "is_public",
    "submitted_at", "finished_at", "url", "expected_rank", "order_holds_with_next",
]  # fmt: skip
# Each metric's columns: its score (named by the metric), then `<metric>_<field>`.
# `score` is the paper's (at the released weights); `corrected_score` the estimate corrected for
# the raters' noise, which `rater_ci_*` (items and raters) surrounds.
SCORE_FIELDS = (
    "score", "ci_low", "ci_high", "corrected_score", "rater_ci_low", "rater_ci_high",
    "rater_unavailable",
)  # fmt: skip


def table_payload(table: LeaderboardTable, *, references_visible: bool) -> dict[str, Any]:
    """Configuration, signature and rows (scores with their intervals and rank groups)."""
    return LeaderboardDetailSerializer(
        {
            "leaderboard": table.leaderboard,
            "signature": table.signature,
            "references_visible": references_visible,
            "rank_groups": {"test": table.test, "correction": table.correction},
            "rank_stability": {
                "available": table.has_stability,
                "with_raters": table.stability_with_raters,
                "method": STABILITY_METHOD,
            },
            "rows": table.rows,
        }
    ).data


def payload_csv(payload: dict[str, Any]) -> str:
    """One line per row; each metric gives its SCORE_FIELDS: the score at the released weights
    and its item interval, the corrected score with its interval over items and raters, and why
    a weighted score has none."""
    board = payload["leaderboard"]
    metrics = [board["primary_metric"]] + [
        m for m in board["companion_metrics"] if m != board["primary_metric"]
    ]
    header = CSV_FIELDS + [
        m if name == "score" else f"{m}_{name}" for m in metrics for name in SCORE_FIELDS
    ]
    rows = []
    for row in payload["rows"]:
        cells = [row[name] for name in CSV_FIELDS]
        for m in metrics:
            score = row["scores"].get(m) or {}
            cells += [score.get(name) for name in SCORE_FIELDS]
        rows.append(cells)
    return csv_text(header, rows)
