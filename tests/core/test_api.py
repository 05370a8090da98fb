"""core.api: a page of a list is named as a list in the schema, an operation is documented by
its method's docstring; a PATCH reads its answer only when it must."""

from __future__ import annotations

import pytest
from rest_framework import exceptions, serializers
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView

from core.api import validated_input
from tests.schema_kit import api_schema


@pytest.fixture(scope="module")
def schema_operations() -> dict[tuple[str, str], dict]:
    schema = api_schema()
    return {
        (path, method): operation
        for path, methods in schema["paths"].items()
        for method, operation in methods.items()
    }


@pytest.fixture(scope="module")
def operations(schema_operations) -> dict[tuple[str, str], str]:
    return {key: operation["operationId"] for key, operation in schema_operations.items()}


def test_a_page_of_a_list_is_named_as_the_list(operations):
    assert operations[("/api/v1/leaderboards/", "get")] == "v1_leaderboards_list"
    assert operations[("/api/v1/datasets/{slug}/releases/", "get")] == "v1_datasets_releases_list"


def test_a_detail_keeps_its_own_name(operations):
    assert operations[("/api/v1/leaderboards/{slug}/", "get")] == "v1_leaderboards_retrieve"


def test_every_operation_has_a_one_line_summary(schema_operations):
    summaries = {key: operation.get("summary") for key, operation in schema_operations.items()}
    assert len(summaries) > 70
    assert [key for key, summary in summaries.items() if not summary] == []
    assert [key for key, summary in summaries.items() if "\n" in summary] == []


def test_the_docstrings_first_paragraph_is_the_summary_and_the_rest_the_description(
    schema_operations,
):
    codes = schema_operations[("/api/v1/campaigns/{campaign_id}/completion-codes/", "post")]
    assert codes["summary"] == "Check the completion codes participants handed in (owner)"
    assert codes["description"].startswith("Before paying a crowd batch: for each participant")
    assert codes["description"].endswith("Writes nothing.")
    one_line = schema_operations[("/api/v1/leaderboards/{slug}/", "get")]
    assert one_line["summary"] and "description" not in one_line  # no second paragraph


class _Changes(serializers.Serializer):
    name = serializers.CharField(required=False)


class _Answer(serializers.Serializer):
    """Counts how often its data is read (what a campaign's answer pays in queries)."""

    name = serializers.CharField()
    status = serializers.CharField()
    reads = 0

    @property
    def data(self):
        type(self).reads += 1
        return super().data


def _request(body: dict):
    return APIView().initialize_request(APIRequestFactory().patch("/", body, format="json"))


def test_a_patch_of_known_fields_does_not_read_the_answer():
    _Answer.reads = 0
    answer = _Answer({"name": "a", "status": "open"})
    fields = validated_input(_Changes, _request({"name": "b"}), answer=answer)
    assert fields == {"name": "b"} and _Answer.reads == 0


def test_a_field_sent_back_unchanged_passes_and_a_changed_one_is_refused():
    answer = _Answer({"name": "a", "status": "open"})
    sent_back = _request({"name": "b", "status": "open"})
    assert validated_input(_Changes, sent_back, answer=answer) == {"name": "b"}
    with pytest.raises(exceptions.ValidationError) as refused:
        validated_input(_Changes, _request({"status": "closed"}), answer=answer)
    assert refused.value.detail == {"status": ["This cannot be changed here; what can: name."]}
