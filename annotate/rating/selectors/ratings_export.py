"""Reads for exporting a campaign's ratings: pseudonymous rows, as CSV or JSON Lines.

Raters appear under a pseudonym that is stable within a campaign and unlinkable across
campaigns: an HMAC under the site's secret, because rater ids are sequential and the campaign
token is known to the owner, so a plain hash of the two could be reversed by trying ids.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

from django.utils.crypto import salted_hmac

from annotate.rating.models import Campaign, CampaignRater, Rating, RatingStatus
from annotate.rating.selectors.completion import completion_code_for
from core.tabular import csv_lines

EXPORT_CHUNK = 2000  # rows fetched per query while streaming
FIELDS = [
    "rater", "crowd_id", "completion_code_valid", "rater_qc_status", "item_external_id",
    "reference_id", "system_a", "system_b", "a_on_left", "kind", "shown_text", "status",
    "score", "preference", "flag", "counted", "started_at", "finished_at", "seconds",
]  # fmt: skip


def rater_pseudonym(*, campaign: Campaign, rater_id: int) -> str:
    """`r-` and 10 hex digits, the same for a rater throughout one campaign."""
    digest = salted_hmac(
        "deltableu.rater-pseudonym", f"{campaign.token}:{rater_id}", algorithm="sha256"
    )
    return "r-" + digest.hexdigest()[:10]


@dataclass(frozen=True)
class RaterColumns:
    rater: str
    crowd_id: str
    completion_code_valid: bool | None  # None: not a crowd participant
    rater_qc_status: str


def rater_columns(*, campaign: Campaign) -> dict[int, RaterColumns]:
    return {
        m.rater_id: RaterColumns(
            rater=rater_pseudonym(campaign=campaign, rater_id=m.rater_id),
            crowd_id=m.crowd_id,
            completion_code_valid=(
                completion_code_for(campaign=campaign, membership=m) is not None
                if m.crowd_id
                else None
            ),
            rater_qc_status=m.qc_status,
        )
        for m in CampaignRater.objects.filter(campaign=campaign)
    }


def campaign_rating_rows(*, campaign: Campaign) -> Iterator[dict[str, object]]:
    """Every answered rating (leases still running are not ratings yet), oldest first. The text
    shown is the reference's or the control's; outputs are named by their systems."""
    raters = rater_columns(campaign=campaign)
    ratings = (
        Rating.objects.filter(campaign=campaign)
        .exclude(status=RatingStatus.LEASED)
        .select_related("slot__item", "slot__reference", "slot__system_a", "slot__system_b")
        .order_by("finished_at", "pk")
    )
    for rating in ratings.iterator(chunk_size=EXPORT_CHUNK):
        who = raters.get(rating.rater_id) or RaterColumns(
            rater_pseudonym(campaign=campaign, rater_id=rating.rater_id), "", None, ""
        )
        slot = rating.slot
        yield {
            "rater": who.rater,
            "crowd_id": who.crowd_id,
            "completion_code_valid": who.completion_code_valid,
            "rater_qc_status": who.rater_qc_status,
            "item_external_id": slot.item.external_id,
            "reference_id": slot.reference_id,
            "system_a": slot.system_a.name if slot.system_a else None,
            "system_b": slot.system_b.name if slot.system_b else None,
            "a_on_left": rating.a_on_left if slot.system_b_id else None,
            "kind": rating.kind,
            "shown_text": rating.control_text or (slot.reference.text if slot.reference else ""),
            "status": rating.status,
            "score": rating.score,
            "preference": rating.preference,
            "flag": rating.flag,
            "counted": rating.counted,
            "started_at": rating.started_at.isoformat(),
            "finished_at": rating.finished_at.isoformat() if rating.finished_at else None,
            "seconds": rating.seconds,
        }


def ratings_csv_lines(*, campaign: Campaign) -> Iterator[str]:
    """The export as CSV, a header first, one line at a time (for a streaming response)."""
    rows = campaign_rating_rows(campaign=campaign)
    return csv_lines(FIELDS, ([row[field] for field in FIELDS] for row in rows), "\r\n")


def ratings_jsonl_lines(*, campaign: Campaign) -> Iterator[str]:
    """The export as JSON Lines: one object per rating."""
    for row in campaign_rating_rows(campaign=campaign):
        yield json.dumps(row, ensure_ascii=False) + "\n"
