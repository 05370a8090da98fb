"""A study of a judgment set with uploaded metric scores: the study's options choose them, and
the run meta-evaluates them beside the built-ins (exports included)."""

import json

import pytest
from django.core.exceptions import ValidationError

from annotate.judgments.selectors import judgment_means
from annotate.judgments.services.metrics import external_metrics_import
from scoring.study.services import study_create, study_export_csv
from tests.runs_kit import execute
from tests.scoring.study_kit import STUDY_OPTIONS, study_inputs, study_release_items

pytestmark = pytest.mark.django_db


@pytest.fixture
def inputs(owner, make_release):
    release = make_release(items=study_release_items(), public_splits=("test",))
    judgments = study_inputs(owner, release)
    means = judgment_means(judgment_set=judgments, criterion="relevance")
    lines = ["id\tsystem\toracle\tnoise"]
    lines += [f"{i}\t{s}\t{m!r}\t{len(i) % 2}" for (s, i), m in sorted(means.items())]
    external_metrics_import(
        judgment_set=judgments, user=owner, name="m.tsv", data="\n".join(lines).encode()
    )
    return release, judgments


def _study(owner, inputs, **options):
    release, judgments = inputs
    study = study_create(
        owner=owner,
        name="with external",
        release=release,
        split="test",
        judgment_set=judgments,
        options={**STUDY_OPTIONS, "sweeps": False, **options},
        send=False,
    )
    assert execute(study.run).state == "succeeded"
    study.refresh_from_db()
    return study


def test_a_study_includes_the_sets_external_metrics_by_default(owner, inputs):
    study = _study(owner, inputs)
    segments = study.result["segments"]["relevance"]["correlations"]
    oracle = next(r for r in segments if r["key"] == "external:oracle")
    assert oracle["label"] == "external: oracle"
    assert oracle["none"]["pearson"]["value"] == pytest.approx(1.0)
    systems = study.result["systems"]["relevance"]["correlations"]
    row = next(r for r in systems if r["key"] == "external:oracle")
    assert row["pairwise_accuracy"]["value"] == 1.0
    assert {"external:oracle", "external:noise"} <= {r["key"] for r in segments}
    assert "external:oracle" in study_export_csv(study)


def test_the_options_choose_which_external_metrics(owner, inputs):
    study = _study(owner, inputs, external=["noise"])
    keys = {r["key"] for r in study.result["segments"]["relevance"]["correlations"]}
    assert "external:noise" in keys and "external:oracle" not in keys
    study = _study(owner, inputs, external=[])
    keys = {r["key"] for r in study.result["segments"]["relevance"]["correlations"]}
    assert not any(k.startswith("external:") for k in keys)


def test_an_unknown_external_metric_is_refused_with_the_sets_names(owner, inputs):
    with pytest.raises(ValidationError, match="no uploaded metric 'comet'.*noise, oracle"):
        _study(owner, inputs, external=["comet"])


def test_run_study_takes_the_external_metrics_to_include(owner, inputs, tmp_path, capsys):
    from django.core.management import call_command

    release, judgments = inputs
    out = tmp_path / "study.json"
    args = ["run_study", release.dataset.slug, "--judgments", str(judgments.pk)]
    args += ["--release", str(release.pk), "--unit-size", "3", "--assignments", "20"]
    args += ["--metric", "bleu", "--no-sweeps", "--json", str(out)]
    call_command(*args, "--external", "oracle")
    keys = {r["key"] for r in json.loads(out.read_text())["segments"]["relevance"]["correlations"]}
    assert "external:oracle" in keys and "external:noise" not in keys
    assert "external:oracle" in capsys.readouterr().out
    call_command(*args, "--no-external")
    keys = {r["key"] for r in json.loads(out.read_text())["segments"]["relevance"]["correlations"]}
    assert not any(k.startswith("external:") for k in keys)


def test_the_study_form_chooses_them_and_the_page_shows_them(
    owner, inputs, client_for, django_capture_on_commit_callbacks
):
    release, judgments = inputs
    form = {"name": "Mine", "release": release.pk, "split": "test", "judgment_set": judgments.pk,
            "unit_size": 3, "assignments": 10, "theta": 0.6, "external": ["oracle"]}  # fmt: skip
    client = client_for(owner)
    assert 'value="oracle"' in client.get("/studies/").content.decode()
    with django_capture_on_commit_callbacks(execute=False):
        response = client.post("/studies/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    study = _study(owner, inputs, external=["oracle"])
    page = client.get(f"/studies/{study.pk}/").content.decode()
    assert "external: oracle|higher is better" in page
    with django_capture_on_commit_callbacks(execute=False):
        client.post("/studies/", {**form, "name": "None", "no_external": "on"})
    from scoring.study.models import CorrelationStudy

    options = {s.name: s.options.get("external") for s in CorrelationStudy.objects.all()}
    assert options["Mine"] == ["oracle"] and options["None"] == []
