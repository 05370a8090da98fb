"""Tokens come from Django's salted HMAC, one salt per purpose, never the raw secret key."""

import hashlib
import hmac

import pytest
from django.conf import settings
from django.utils.crypto import salted_hmac

from annotate.rating.models import CampaignRater
from annotate.rating.selectors.completion import _code
from annotate.rating.selectors.ratings_export import rater_pseudonym

pytestmark = pytest.mark.django_db


def test_completion_codes_and_pseudonyms_use_their_own_salted_keys(make_campaign, make_rater):
    campaign = make_campaign()
    rater = make_rater(campaign)
    raw = hmac.new(settings.SECRET_KEY.encode(), b"x", hashlib.sha256).hexdigest()
    code = _code(campaign, "P123")
    assert code.lower() not in raw
    expected = salted_hmac(
        "deltableu.completion-code", f"{campaign.token}:P123", algorithm="sha256"
    )
    assert code == __import__("base64").b32encode(expected.digest()).decode()[:10]
    pseudonym = rater_pseudonym(campaign=campaign, rater_id=rater.pk)
    salted = salted_hmac(
        "deltableu.rater-pseudonym", f"{campaign.token}:{rater.pk}", algorithm="sha256"
    )
    assert pseudonym == "r-" + salted.hexdigest()[:10]
    # Different purposes never share a value for the same input.
    assert salted.hexdigest() != expected.hexdigest()
    assert CampaignRater.objects.filter(campaign=campaign).exists()
