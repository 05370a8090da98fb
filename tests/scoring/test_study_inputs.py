"""A study on any judgments: weights from a release, a campaign or +1 for every reference;
criteria chosen, side by side or averaged, wrong names refused at once; systems excluded;
leave-one-out switched on when a system's outputs are copies of references."""

import json

import numpy as np
import pytest
from django.core.exceptions import ValidationError

from annotate.judgments.services.importing import bundle_parse, judgments_import
from annotate.judgments.services.systems import eval_system_set_outputs
from annotate.rating.models import Weight
from scoring.study.inputs import study_data
from scoring.study.services import study_create

pytestmark = pytest.mark.django_db
ITEMS = 8
WORDS = ["the cat sat on the mat", "a dog ran in the park", "we like hot tea today"]


def _bundle(owner, dataset):
    """Items with two references each, three systems (one copying the first reference) and
    two criteria judged by two judges."""
    contexts = "\n".join(f"i{k}\t1\thello there {k}" for k in range(ITEMS)).encode()
    references = "\n".join(
        f"i{k}\t{WORDS[k % 3]}\t{WORDS[(k + 1) % 3]} too" for k in range(ITEMS)
    ).encode()
    outputs = {
        "copy": [WORDS[k % 3] for k in range(ITEMS)],
        "good": [" ".join(WORDS[k % 3].split()[1:]) for k in range(ITEMS)],
        "bad": ["nothing at all" for _ in range(ITEMS)],
    }
    for name, texts in outputs.items():
        rows = [(f"i{k}", text) for k, text in enumerate(texts)]
        eval_system_set_outputs(dataset=dataset, name=name, split="test", outputs=rows)
    quality = {"copy": 5, "good": 4, "bad": 1}
    lines = [
        json.dumps(
            {
                "judge": f"j{j}",
                "id": f"i{k}",
                "system": name,
                "scores": {"Relevance": q - (k + j) % 2, "Informativeness": q - k % 3 * 0.5},
            }
        )
        for name, q in quality.items()
        for k in range(ITEMS)
        for j in range(2)
    ]
    bundle = bundle_parse(
        judgments=("j.jsonl", "\n".join(lines).encode()),
        contexts=("contexts.tsv", contexts),
        references=("references.tsv", references),
    )
    return judgments_import(dataset=dataset, owner=owner, name="human", split="test", bundle=bundle)


@pytest.fixture
def judged(owner, make_dataset):
    dataset = make_dataset(slug="pilot", data=None)
    return _bundle(owner, dataset)


def _study(owner, judged, **fields):
    return study_create(owner=owner, name="s", split="test", judgment_set=judged, **fields)


def test_without_ratings_every_reference_counts_plus_one(owner, judged):
    study = _study(owner, judged, leave_one_out="off")
    data = study_data(study)
    assert study.weight_source == "uniform" and len(data.item_ids) == ITEMS
    assert {r.weight for refs in data.refs for r in refs} == {1.0}
    assert [len(refs) for refs in data.refs] == [2] * ITEMS
    assert list(data.human) == ["Relevance"]  # the first criterion by default


def test_campaign_weights_are_used_and_unrated_references_left_out(owner, judged, make_campaign):
    campaign = make_campaign(dataset=judged.dataset)
    first = judged.dataset.splits.get(name="test").items.order_by("position").first()
    reference = first.references.order_by("position").first()
    Weight.objects.create(campaign=campaign, reference=reference, n=3, weight=0.5)
    study = _study(owner, judged, weight_campaign=campaign, leave_one_out="off")
    data = study_data(study)
    assert study.weight_source == "campaign"
    assert data.item_ids == [first.external_id]
    assert [(r.text, r.weight) for r in data.refs[0]] == [(reference.text, 0.5)]


def test_a_wrong_criterion_is_refused_at_once_with_the_valid_names(owner, judged):
    with pytest.raises(ValidationError) as refused:
        _study(owner, judged, criteria=["relevance"])
    message = refused.value.message_dict["criteria"][0]
    assert "'relevance'" in message and "Relevance, Informativeness" in message


def test_criteria_side_by_side_and_their_mean(owner, judged):
    both = study_data(_study(owner, judged, criteria=["Relevance", "Informativeness"]))
    assert list(both.human) == ["Relevance", "Informativeness"]
    mean = study_data(
        _study(owner, judged, criteria=["Relevance", "Informativeness"], combine="mean")
    )
    (name,) = mean.human
    assert name == "mean(Relevance, Informativeness)"
    each = [both.system_scores[c]["good"] for c in ("Relevance", "Informativeness")]
    expected = (each[0] + each[1]) / 2
    np.testing.assert_allclose(mean.system_scores[name]["good"], expected)
    with pytest.raises(ValidationError, match="at least two"):
        _study(owner, judged, criteria=["Relevance"], combine="mean")


def test_excluded_systems_leave_their_pairs_and_unknown_names_are_refused(owner, judged):
    data = study_data(_study(owner, judged, excluded_systems=["copy"]))
    assert data.pairs == [("bad", "good")] and "copy" not in data.outputs
    with pytest.raises(ValidationError, match="'nope'.*bad, copy, good"):
        _study(owner, judged, excluded_systems=["nope"])
    with pytest.raises(ValidationError, match="at least two"):
        _study(owner, judged, excluded_systems=["copy", "good"])


def test_leave_one_out_is_switched_on_when_outputs_copy_references(owner, judged):
    auto = study_data(_study(owner, judged))
    assert auto.leave_one_out is True
    assert any("copy (100% of its outputs)" in note for note in auto.notes)
    off = study_data(_study(owner, judged, leave_one_out="off"))
    assert off.leave_one_out is False
    assert any("coincide with references and are scored with them" in n for n in off.notes)
