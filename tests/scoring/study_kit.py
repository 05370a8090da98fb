"""A small release, three evaluated systems and imported judgments, for study tests."""

import json

from annotate.judgments.services.importing import bundle_parse, judgments_import
from annotate.judgments.services.systems import eval_system_set_outputs
from scoring.study.services import study_create

WORDS = ["the cat sat on the mat", "a dog ran in the park", "we like hot tea today"]


def study_release_items(n=12):
    items = []
    for i in range(n):
        text = WORDS[i % 3]
        items.append(
            ("test", f"t{i}", [(text, 0.9), (f"{text} again", 0.5), ("noise words", -0.8)])
        )
    return items


def study_inputs(owner, release, n=12):
    dataset = release.dataset
    quality = {"good": 0, "mid": 2, "bad": 4}
    for name, drop in quality.items():
        outputs = [(f"t{i}", " ".join(WORDS[i % 3].split()[drop:]) or "x") for i in range(n)]
        eval_system_set_outputs(dataset=dataset, name=name, split="test", outputs=outputs)
    lines = [
        json.dumps(
            {
                "judge": f"j{k}",
                "id": f"t{i}",
                "system": name,
                "scores": {"relevance": 5 - drop + (i + k) % 2},
            }
        )
        for name, drop in quality.items()
        for i in range(n)
        for k in range(2)
    ]
    return judgments_on_test_split(owner, dataset, lines, name="human")


def judgments_on_test_split(owner, dataset, lines, *, name):
    """A judgment set on the test split from JSON lines (one judge's scores of one output each)."""
    bundle = bundle_parse(judgments=("j.jsonl", "\n".join(lines).encode()))
    return judgments_import(dataset=dataset, owner=owner, name=name, split="test", bundle=bundle)


def study_on_test_split(owner, release, judgments, *, name):
    """A study of ``STUDY_OPTIONS`` on the test split; its run is queued on commit."""
    return study_create(
        owner=owner,
        name=name,
        release=release,
        split="test",
        judgment_set=judgments,
        options=STUDY_OPTIONS,
    )


STUDY_OPTIONS = {
    "unit_size": 3,
    "assignments": 20,
    "metrics": ["bleu", "dbleu", "sbleu"],
    "unit_sizes": [1, 2, 3],
    "thetas": [0.6, -1.0],
}


def finished_study(owner, *, name):
    """A study of ``STUDY_OPTIONS`` on a small release's test split, run here to its end (the
    rows a test module's shared world holds: ``{"study": …}``)."""
    from tests.conftest import release_of
    from tests.runs_kit import execute

    release = release_of(owner, items=study_release_items(), public_splits=("test",))
    judgments = study_inputs(owner, release)
    made = study_on_test_split(owner, release, judgments, name=name)
    assert execute(made.run).state == "succeeded"
    return {"study": made}
