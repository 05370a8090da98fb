"""Completion codes: derived, never stored, valid only after passing QC.

Crowd participants hand theirs to the crowd platform; a rater with an account gets one too when
they have nothing left to rate, as a receipt they can give the researcher (say, for payment).

The code is a salted HMAC (Django's `salted_hmac`, a key of its own derived from the site's
secret) of the campaign's token and the participant's id,
so the owner can check any code a participant hands in without a table of issued codes, and a
code from one campaign is worthless in another.
"""

from __future__ import annotations

import base64
import hmac

from django.utils.crypto import salted_hmac

from annotate.rating.models import Campaign, CampaignRater, QCStatus

CODE_LENGTH = 10  # base32 characters: 50 bits, far beyond guessing


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


def completion_code_verify(campaign: Campaign, crowd_id: str, code: str) -> bool:
    """Whether `code` is the valid completion code of participant `crowd_id` (case, spaces and
    dashes ignored): right for them, and they passed quality control."""
    membership = CampaignRater.objects.filter(campaign=campaign, crowd_id=crowd_id).first()
    expected = completion_code_for(campaign=campaign, membership=membership) if membership else None
    given = code.replace("-", "").replace(" ", "").upper()
    return expected is not None and hmac.compare_digest(expected, given)


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
    # A salt of its own, so that no crowd participant's id can produce an account's code.
    return _code(campaign, str(membership.rater_id), purpose="deltableu.completion-code.account")
