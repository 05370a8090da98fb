"""What a study's options may be (`StudyOptions.problems`), from what each means."""

import pytest

from scoring.metrics import entries
from scoring.study.analysis.configs import SWEEP_POINTS, StudyOptions


def test_the_defaults_have_no_problem():
    assert StudyOptions().problems() == {}
    assert StudyOptions(metrics=tuple(entries()), thetas=(1.0, -1.0)).problems() == {}


@pytest.mark.parametrize(
    ("options", "problems"),
    [
        ({"metrics": ("nosuch", "bleu", "x")}, {"metrics": "No metric 'nosuch', 'x': choose"}),
        ({"sweep_metrics": ("nosuch",)}, {"sweep_metrics": "No metric 'nosuch': choose"}),
        ({"unit_size": 0}, {"unit_size": "must be 1 … 1,000 (not 0)."}),
        ({"assignments": 10_001}, {"assignments": "must be 1 … 10,000 (not 10001)."}),
        ({"bootstrap": 0}, {"bootstrap": "must be 1 … 10,000 (not 0)."}),
        ({"theta": 1.5}, {"theta": "must be -1.0 … 1.0 (not 1.5)."}),
        ({"order": 5}, {"order": "must be 1 … 4 (not 5)."}),
        ({"thetas": (5.0, 0.5, -7.0)}, {"thetas": "each must be -1.0 … 1.0 (not 5.0, -7.0)."}),
        ({"unit_sizes": (0, 10)}, {"unit_sizes": "each must be 1 … 1,000 (not 0)."}),
        ({"orders": (1, 9)}, {"orders": "each must be 1 … 4 (not 9)."}),
        ({"thetas": (0.5,) * (SWEEP_POINTS + 1)}, {"thetas": "at most 50 values."}),
    ],
)
def test_each_problem_is_named_by_its_option(options, problems):
    found = StudyOptions.from_dict(options).problems()
    assert sorted(found) == sorted(problems)
    for name, start in problems.items():
        assert found[name].startswith(start)


def test_an_unknown_metric_lists_every_valid_name():
    message = StudyOptions(metrics=("nosuch",)).problems()["metrics"]
    assert message == f"No metric 'nosuch': choose from {', '.join(entries())}."
