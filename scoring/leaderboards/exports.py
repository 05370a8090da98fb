"""The leaderboard as data: one payload for the API and the JSON export, flattened for CSV."""

from __future__ import annotations

from typing import Any

from core.tabular import csv_text
from scoring.leaderboards.api.serializers import LeaderboardDetailSerializer
from scoring.leaderboards.selectors.leaderboard_table import LeaderboardTable

CSV_FIELDS = [
    "position", "group", "submission", "team", "method", "is_baseline", "is_public",
    "submitted_at", "finished_at", "url",
]  # fmt: skip


def table_payload(table: LeaderboardTable, *, references_visible: bool) -> dict[str, Any]:
    """Configuration, signature and rows (scores with their intervals and rank groups)."""
    return LeaderboardDetailSerializer(
        {
            "leaderboard": table.leaderboard,
            "signature": table.signature,
            "references_visible": references_visible,
            "rank_groups": {"test": table.test, "correction": table.correction},
            "rows": table.rows,
        }
    ).data


def payload_csv(payload: dict[str, Any]) -> str:
    """One line per row; each metric gives three columns: score, CI low and CI high."""
    board = payload["leaderboard"]
    metrics = [board["primary_metric"]] + [
        m for m in board["companion_metrics"] if m != board["primary_metric"]
    ]
    header = CSV_FIELDS + [f"{m}{part}" for m in metrics for part in ("", "_ci_low", "_ci_high")]
    rows = []
    for row in payload["rows"]:
        cells = [row[name] for name in CSV_FIELDS]
        for m in metrics:
            score = row["scores"].get(m) or {}
            cells += [score.get("score"), score.get("ci_low"), score.get("ci_high")]
        rows.append(cells)
    return csv_text(header, rows)
