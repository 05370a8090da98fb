"""acc_eq of many bootstrap replicates at once is each replicate's own, bit for bit."""

import numpy as np
import pytest

from scoring.study.analysis.metaeval import tie_calibrated_accuracy, tie_calibrated_values


def _replicates(seed: int, systems: int, rows: int = 400):
    """Scores with ties in both (rounded metric, human means of thirds), equal systems and
    rows with a NaN (a system left out) or too few systems."""
    rng = np.random.default_rng(seed)
    metric = np.round(rng.normal(size=(rows, systems)), 1)
    human = np.round(rng.normal(size=(rows, systems)) * 3) / 3
    metric[::17, 0] = metric[::17, 1]  # a metric tie at ε = 0
    human[::13] = 1.0  # every pair tied for the humans
    metric[::29, -1] = np.nan
    human[::31, :-1] = np.nan  # one system left: no pair
    return metric, human


@pytest.mark.parametrize("systems", [2, 3, 10])
@pytest.mark.parametrize("seed", [0, 1])
def test_rows_equal_one_call_per_replicate(seed, systems):
    metric, human = _replicates(seed, systems)
    expected = np.array([tie_calibrated_accuracy(m, h).value for m, h in zip(metric, human)])
    assert tie_calibrated_values(metric, human).tobytes() == expected.tobytes()


def test_one_system_has_no_value():
    assert np.isnan(tie_calibrated_values(np.ones((3, 1)), np.ones((3, 1)))).all()
