"""A release version is a semantic version wherever it enters: form, API, command, import."""

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from annotate.releases.models import Release
from annotate.releases.services.importing import release_import_archive
from tests.annotate.release_archive_kit import archive_of, victim_release, with_version
from tests.annotate.release_kit import _media, freeze, published, rated  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture
def victim(owner, make_dataset, make_campaign, make_rater):
    return victim_release(owner, make_dataset, make_campaign, make_rater)


NOT_SEMVER = ["1.0", "v1.0.0", "01.0.0", "1.0.0-", "1.0.0-01", "../pub/1.0.0", "1.0.0\n", "١.0.0"]
SEMVER = ["0.1.0", "1.2.0-rc.1", "2.0.0-alpha.beta+build.7"]


@pytest.fixture
def rated_chat(make_dataset, make_campaign, make_rater):
    return rated(make_dataset, make_campaign, make_rater)


@pytest.mark.parametrize("version", NOT_SEMVER)
def test_the_service_refuses_what_is_not_semver(rated_chat, owner, version):
    with pytest.raises(ValidationError) as caught:
        freeze(*rated_chat, owner, version=version)
    assert "semantic version" in caught.value.message_dict["version"][0]
    assert not Release.objects.exists()


def test_a_version_too_long_for_its_column_is_refused_by_name(rated_chat, owner):
    with pytest.raises(ValidationError, match="at most 32 characters"):
        freeze(*rated_chat, owner, version="1.0.0-" + "a" * 40)


@pytest.mark.parametrize("version", SEMVER)
def test_prereleases_and_build_metadata_publish_and_are_served(
    rated_chat, owner, client_for, version
):
    release = published(*rated_chat, owner, version=version)
    assert release.storage_prefix == (
        f"releases/{release.dataset_id}/{version}/{release.manifest_checksum[:16]}/"
    )
    url = reverse("api-release-manifest", kwargs={"slug": "chat", "version": version})
    assert client_for(owner).get(url).status_code == 200


def test_the_form_shows_the_error_on_the_version(rated_chat, owner, client_for):
    campaign = rated_chat[1]
    response = client_for(owner).post(
        reverse("release-new", kwargs={"slug": "chat"}),
        {"version": "../x", "campaign": campaign.pk, "weight_variant": "raw", "license": "MIT"},
    )
    assert response.status_code == 200
    assert "semantic version" in str(response.context["form"].errors["version"])


def test_the_api_answers_400_on_the_version(rated_chat, owner, client_for):
    campaign = rated_chat[1]
    url = reverse("api-releases", kwargs={"slug": "chat"})
    response = client_for(owner).post(url, {"version": "1.0", "campaign": campaign.pk})
    assert response.status_code == 400 and "semantic version" in response.json()["version"][0]


def test_the_command_refuses_naming_the_version(rated_chat):
    campaign = rated_chat[1]
    with pytest.raises(CommandError, match="The version must be a semantic version"):
        call_command("freeze_release", "chat", "1.0", "--campaign", str(campaign.pk))


@pytest.mark.parametrize("version", ["1.0", "1.0.0/../../x", "1.0.0\n"])
def test_an_archive_whose_manifest_is_not_semver_is_refused(victim, other, version):
    with pytest.raises(ValidationError, match="semantic version"):
        release_import_archive(source=with_version(archive_of(victim), version), owner=other)
