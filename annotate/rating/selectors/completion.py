"""Completion codes: derived, never stored, valid only after passing QC.

Crowd participants hand theirs to the crowd platform; a rater with an account gets one too when
they have nothing left to rate, as a receipt they can give the researcher (say, for payment).

The code is a salted HMAC (Django's `salted_hmac`, a key of its own derived from the site's
secret) of the campaign's token and the participant's id,
so the owner can check any code a participant hands in without a table of issued codes
(`completion_codes_check`: the dashboard's "Check codes" page and the API), and a code from one
campaign is worthless in another.
"""

from __future__ import annotations

import base64
import hmac
from collections.abc import Sequence
from dataclasses import dataclass

from django.db.models import Q
from django.utils.crypto import salted_hmac

from annotate.rating.models import Campaign, CampaignRater, QCStatus

CODE_LENGTH = 10  # base32 characters: 50 bits, far beyond guessing
# A salt of its own for accounts' receipts, so that no crowd participant's id gives one.
ACCOUNT_PURPOSE = "deltableu.completion-code.account"


def _code(campaign: Campaign, crowd_id: str, purpose: str = "deltableu.completion-code") -> str:
    # Django's salted HMAC: a key derived for this purpose alone, never the raw secret.
    digest = salted_hmac(purpose, f"{campaign.token}:{crowd_id}", algorithm="sha256").digest()
    return base64.b32encode(digest).decode()[:CODE_LENGTH]


def completion_code_for(*, campaign: Campaign, membership: CampaignRater) -> str | None:
    """The participant's completion code, or None unless they arrived from a crowd platform
    and passed quality control."""
    if not membership.crowd_id or membership.qc_status != QCStatus.PASSED:
        return None
    return _code(campaign, membership.crowd_id)


class Verdict:
    """What checking one handed-in code found (`VERDICTS` says it in words)."""

    VALID = "valid"
    WRONG_CODE = "wrong_code"
    QC_PENDING = "qc_pending"
    QC_FAILED = "qc_failed"
    UNKNOWN = "unknown_participant"


VERDICTS = {
    Verdict.VALID: "Valid: this participant passed quality control.",
    Verdict.WRONG_CODE: "Wrong code for this participant (a code from another campaign, "
    "another participant's, or mistyped).",
    Verdict.QC_PENDING: "The code is right, but quality control has not judged the answers yet.",
    Verdict.QC_FAILED: "The code is right, but the answers failed quality control.",
    Verdict.UNKNOWN: "No rater of this campaign has this crowd id or username.",
}

# The most codes one check takes: a large crowd batch; more go in a second check.
MAX_CODE_CHECKS = 10_000
# The longest participant (a crowd id or a username) and code a check takes.
MAX_PARTICIPANT_CHARS = 150
MAX_CODE_CHARS = 64


@dataclass(frozen=True)
class CodeCheck:
    participant: str
    code: str
    verdict: str

    @property
    def valid(self) -> bool:
        return self.verdict == Verdict.VALID

    @property
    def message(self) -> str:
        return VERDICTS[self.verdict]


@dataclass(frozen=True)
class CodeChecks:
    results: list[CodeCheck]  # one per entry, in the entries' order

    @property
    def checked(self) -> int:
        return len(self.results)

    @property
    def valid(self) -> int:
        return sum(check.valid for check in self.results)


def _code_of(campaign: Campaign, membership: CampaignRater) -> str:
    if membership.crowd_id:
        return _code(campaign, membership.crowd_id)
    return _code(campaign, str(membership.rater_id), purpose=ACCOUNT_PURPOSE)


def _verdict(campaign: Campaign, membership: CampaignRater | None, code: str) -> str:
    if membership is None:
        return Verdict.UNKNOWN
    given = code.replace("-", "").replace(" ", "").upper().encode()
    # Bytes, as compare_digest refuses str with characters outside ASCII.
    if not hmac.compare_digest(_code_of(campaign, membership).encode(), given):
        return Verdict.WRONG_CODE
    if membership.qc_status == QCStatus.PASSED:
        return Verdict.VALID
    return Verdict.QC_FAILED if membership.qc_status == QCStatus.FAILED else Verdict.QC_PENDING


def completion_codes_check(*, campaign: Campaign, entries: Sequence[tuple[str, str]]) -> CodeChecks:
    """Check the codes participants handed in, as (participant, code) pairs: a crowd id with
    its completion code, or an account rater's username with their receipt (a crowd id is
    looked up first). Case, spaces and dashes in a code are ignored; a code is valid only for
    its participant, in this campaign, once they passed quality control. One query, however
    many entries."""
    wanted = {participant.strip() for participant, _ in entries}
    memberships = (
        CampaignRater.objects.filter(campaign=campaign)
        .filter(Q(crowd_id__in=wanted) | Q(crowd_id="", rater__username__in=wanted))
        .select_related("rater")
        .order_by("-crowd_id")  # a crowd id before an account's username of the same text
    )
    found: dict[str, CampaignRater] = {}
    for membership in memberships:
        found.setdefault(membership.crowd_id or membership.rater.username, membership)
    results = [
        CodeCheck(participant, code, _verdict(campaign, found.get(participant.strip()), code))
        for participant, code in entries
    ]
    return CodeChecks(results)


def completion_code_shown(
    *, campaign: Campaign, membership: CampaignRater, answered: int
) -> str | None:
    """The code a rater who is done sees: a crowd participant's (see completion_code_for), or an
    account rater's receipt once they answered something and passed quality control. Call it only
    when the rater has nothing left to rate."""
    if membership.crowd_id:
        return completion_code_for(campaign=campaign, membership=membership)
    if not answered or membership.qc_status != QCStatus.PASSED:
        return None
    return _code_of(campaign, membership)
