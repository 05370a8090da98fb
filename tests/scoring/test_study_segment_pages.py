"""A finished study's segment level and WMT meta-evaluation on its page, in its CSV and in the
API's result (a pairwise campaign's study, without them: `test_study_campaign`)."""

import csv
import io

import pytest

from tests.scoring.study_kit import finished_study
from tests.scoring.world_kit import shared_scoring_world

pytestmark = pytest.mark.django_db


def _finished_study(owner):
    return finished_study(owner, name="Segments")


shared, world, study = shared_scoring_world(_finished_study, "study")


def test_the_stored_result_has_the_segment_level_and_meta_evaluation(study):
    segments = study.result["segments"]["relevance"]
    assert segments["systems"] == ["bad", "good", "mid"]
    keys = [row["key"] for row in segments["correlations"]]
    assert keys == ["bleu|all|n2", "dbleu|all|n2", "sbleu|all|n2"]
    row = segments["correlations"][0]
    assert row["label"] == "BLEU-2" and "|order:2|" in row["signature"]
    assert row["responses"] == 36 and row["items"] == 12
    for grouping in ("none", "item"):
        assert set(row[grouping]) == {"pearson", "spearman", "kendall"}
    level = study.result["systems"]["relevance"]
    for c in level["correlations"]:
        assert {"pairwise_accuracy", "acc_eq", "spa"} <= set(c)
        assert c["pairwise_accuracy"]["pairs"] == 3
    for clusters in (level["clusters"], segments["clusters"]):
        assert sorted(r["key"] for r in clusters["ranks"]) == sorted(keys)
        assert clusters["ranks"][0]["rank"] == 1 and clusters["ranks"][0]["p_value"] is None


def test_the_page_shows_the_segments_and_the_meta_evaluation(study, client_for, owner):
    page = client_for(owner).get(f"/studies/{study.pk}/").content.decode()
    assert "<h2>Systems — relevance</h2>" in page and 'id="study-table"' in page
    assert 'class="grid system-table"' in page and 'class="grid correlation-table"' in page
    assert "<h2>Segments — relevance</h2>" in page and 'class="grid segment-table"' in page
    for heading in ("Pairwise acc.", "acc_eq (ε)", "SPA", "Rank", "Item-grouped"):
        assert heading in page
    segment = page[page.index("Segments — relevance") :]
    assert "<td>ΔBLEU-2<br>" in segment
    assert study.result["segments"]["relevance"]["correlations"][1]["signature"] in segment
    assert "statistics row" in segment  # what a response's metric score is


def test_the_csv_has_the_new_blocks_after_table_2(study, client_for, owner):
    text = client_for(owner).get(f"/studies/{study.pk}/export.csv").content.decode()
    assert text.startswith("criterion,metric,refs,order,rho")
    rows = list(csv.reader(io.StringIO(text)))
    heads = [r[0] for r in rows if r]
    assert heads.index("system_metaeval") < heads.index("segments") < heads.index("sweep")
    start = heads.index("segments")
    block = [r for r in rows if r][start + 1 : start + 1 + 6]
    assert [(r[1], r[2]) for r in block[:2]] == [("bleu|all|n2", "none"), ("bleu|all|n2", "item")]
    expected = study.result["segments"]["relevance"]["correlations"][0]["none"]["pearson"]
    assert float(block[0][3]) == pytest.approx(expected["value"], abs=1e-4)
    assert block[0][-1].startswith("bleu|order:2|")


def test_the_api_returns_the_segment_level(study, client_for, owner):
    result = client_for(owner).get(f"/api/v1/studies/{study.pk}/").json()["result"]
    assert set(result["segments"]) == {"relevance"}
    assert "clusters" in result["systems"]["relevance"]


def test_the_schema_names_the_new_parts_of_a_result():
    from tests.schema_kit import api_schema

    schema = api_schema()
    result = schema["components"]["schemas"]["StudyDetail"]["properties"]["result"]
    assert result["readOnly"] and "`segments`" in result["description"]
    export = schema["paths"]["/api/v1/studies/{study_id}/export.{fmt}"]["get"]["responses"]
    assert "segment level" in export["200"]["description"]
