"""`manage.py run_study`: bad arguments end in one line before the study is made or run.

(A whole study from raw files on the command line: tests/scoring/test_study_end_to_end.py.)"""

import json

import pytest
from django.core.management import CommandError, call_command

from scoring.study.models import CorrelationStudy
from tests.scoring.study_kit import study_inputs, study_release_items

pytestmark = pytest.mark.django_db


@pytest.fixture
def judged(owner, make_release):
    release = make_release(items=study_release_items(), public_splits=("test",))
    return study_inputs(owner, release), release


def run_study(judged, *extra):
    judgments, release = judged
    call_command(
        "run_study", judgments.dataset.slug, "--judgments", str(judgments.pk),
        "--release", str(release.pk), "--unit-size", "3", "--assignments", "10",
        "--no-sweeps", *extra,
    )  # fmt: skip


def test_it_writes_the_result_where_told(judged, tmp_path, capsys):
    run_study(judged, "--metric", "bleu", "--json", str(tmp_path / "study.json"))
    assert "System pairs" in capsys.readouterr().out
    assert json.loads((tmp_path / "study.json").read_text())["table"]


def test_an_unknown_metric_is_one_line_naming_the_valid_ones_and_no_study(judged):
    with pytest.raises(CommandError) as refused:
        run_study(judged, "--metric", "nosuch")
    message = str(refused.value)
    assert message.startswith("metrics: No metric 'nosuch': choose from bleu, dbleu, ")
    assert "\n" not in message
    assert not CorrelationStudy.objects.exists()


def test_a_json_target_that_is_a_directory_is_refused_before_the_study(judged, tmp_path):
    with pytest.raises(CommandError, match=r"^--json: .* is a directory; name a file in it\.$"):
        run_study(judged, "--json", str(tmp_path))
    assert not CorrelationStudy.objects.exists()


def test_a_json_target_in_a_missing_folder_is_refused_before_the_study(judged, tmp_path):
    with pytest.raises(CommandError, match=r"^--json: no folder .*nodir to write s.json in\.$"):
        run_study(judged, "--json", str(tmp_path / "nodir" / "s.json"))
    assert not CorrelationStudy.objects.exists()
