import numpy as np
import pytest

from annotate.rating.weights_math import summarise, weight_of, z_rescaled


@pytest.mark.parametrize("mean, weight", [(1, -1.0), (3, 0.0), (5, 1.0), (4, 0.5), (2.5, -0.25)])
def test_one_to_five_is_m_minus_three_over_two(mean, weight):
    assert weight_of(mean, 1, 5) == pytest.approx(weight, abs=1e-12)
    assert weight_of(mean, 1, 5) == pytest.approx((mean - 3) / 2, abs=1e-12)


def test_other_scales_map_onto_minus_one_plus_one():
    assert weight_of(0, 0, 10) == -1.0 and weight_of(10, 0, 10) == 1.0 and weight_of(5, 0, 10) == 0


def test_summary_has_n_sd_and_an_interval_around_the_weight():
    summary = summarise([4, 5, 3], 1, 5)
    assert summary["n"] == 3 and summary["mean"] == pytest.approx(4.0)
    assert summary["sd"] == pytest.approx(1.0)
    assert summary["weight"] == pytest.approx(0.5)
    assert -1 <= summary["ci_low"] <= summary["weight"] <= summary["ci_high"] <= 1
    assert summarise([4, 5, 3], 1, 5) == summary  # fixed seed


def test_one_rating_has_a_point_interval_and_none_has_no_weight():
    assert summarise([5], 1, 5)["ci_low"] == summarise([5], 1, 5)["ci_high"] == 1.0
    assert summarise([], 1, 5)["weight"] is None


def test_z_rescaling_removes_a_raters_leniency():
    # Rater 1 rates everything one point higher than rater 2: after z-normalisation they agree.
    # Each rater's z is (+1.22, 0, -1.22); the pooled scores have mean 3.5 and SD sqrt(11/12),
    # so z maps back to 3.5 ± sqrt(3/2) * sqrt(11/12) = 3.5 ± sqrt(11/8).
    scores = np.array([5, 4, 3, 4, 3, 2], dtype=float)
    raters = np.array([1, 1, 1, 2, 2, 2])
    step = np.sqrt(11 / 8)
    expected = [3.5 + step, 3.5, 3.5 - step] * 2
    assert z_rescaled(scores, raters, 1, 5) == pytest.approx(expected)


def test_z_rescaling_of_a_constant_rater_is_the_pooled_mean():
    # Pooled mean 3, pooled SD sqrt(2); rater 2's z is (-1, +1).
    rescaled = z_rescaled(np.array([3.0, 3.0, 1.0, 5.0]), np.array([1, 1, 2, 2]), 1, 5)
    assert rescaled == pytest.approx([3.0, 3.0, 3 - np.sqrt(2), 3 + np.sqrt(2)])


def test_z_rescaling_is_clipped_to_the_scale():
    # Rater 2's lone 5 has z = +2; pooled mean 15/7 + 2 × pooled SD 1.46 ≈ 5.06, clipped to 5.
    scores = np.array([3.0, 3.0, 1.0, 1.0, 1.0, 1.0, 5.0])
    rescaled = z_rescaled(scores, np.array([1, 1, 2, 2, 2, 2, 2]), 1, 5)
    assert rescaled.max() == 5.0 and rescaled.min() >= 1.0
