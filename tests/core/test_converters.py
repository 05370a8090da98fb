"""`<id:…>` in a URL: a database key written the one way, 1 to 18 digits without a leading zero."""

import pytest
from django.urls import Resolver404, resolve, reverse

from core.converters import natural_or_none


def test_an_id_resolves_and_reverses_as_written():
    match = resolve("/corpora/7/")
    assert match.url_name == "corpus-detail" and match.kwargs == {"corpus_id": 7}
    assert reverse("corpus-detail", args=[7]) == "/corpora/7/"
    assert resolve("/corpora/" + "9" * 18 + "/").kwargs == {"corpus_id": int("9" * 18)}


@pytest.mark.parametrize("written", ["007", "0", "00", "9" * 19, "²", "-1"])
def test_another_spelling_is_no_address(written):
    with pytest.raises(Resolver404):
        resolve(f"/corpora/{written}/")


def test_a_leading_zero_is_a_404_not_a_second_address(make_campaign, client_for, owner):
    campaign, client = make_campaign(), client_for(owner)
    assert client.get(f"/api/v1/campaigns/{campaign.pk}/").status_code == 200
    assert client.get(f"/api/v1/campaigns/00{campaign.pk}/").status_code == 404


def test_forms_and_files_still_read_what_people_type():
    # A number typed into a form or a file may carry a leading zero; only URLs are canonical.
    assert natural_or_none("007") == 7 and natural_or_none("9" * 19) is None
