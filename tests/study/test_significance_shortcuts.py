"""PERM-BOTH's shortcuts (one product with the swaps per chunk) give the p-values of the
general path, draw for draw."""

import numpy as np
import pytest

from scoring.study.analysis import significance as sg


def _world(seed):
    rng = np.random.default_rng(seed)
    quality = rng.normal(size=(6, 1)) + rng.normal(size=(1, 40))
    human = np.round((quality + rng.normal(size=quality.shape)) * 3) / 3
    human[rng.random(human.shape) < 0.05] = np.nan
    a = quality + rng.normal(size=quality.shape)
    b = quality + 1.1 * rng.normal(size=quality.shape)
    return human, a, b


@pytest.mark.parametrize("level,statistic", [("none", "pearson"), ("system", "pearson"),
                                             ("system", "kendall")])  # fmt: skip
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_shortcut_p_values_equal_the_general_paths(monkeypatch, level, statistic, seed):
    human, a, b = _world(seed)
    fn = sg.correlation_method(level, statistic)
    layout = sg.Responses.of(np.isfinite(human), human)
    cells = (layout.rows, layout.cols)
    assert sg._shortcut(fn, a[cells], b[cells], layout) is not None
    fast = sg.perm_both(human, a, b, correlation_fn=fn, draws=300, seed=seed)
    monkeypatch.setattr(sg, "_shortcut", lambda *args: None)
    slow = sg.perm_both(human, a, b, correlation_fn=fn, draws=300, seed=seed)
    assert 0 < slow.p_value < 1
    assert fast.p_value == slow.p_value
    assert fast.delta == pytest.approx(slow.delta)


def test_item_grouped_and_rank_statistics_over_all_responses_take_the_general_path():
    human, a, b = _world(0)
    layout = sg.Responses.of(np.isfinite(human), human)
    cells = (layout.rows, layout.cols)
    for level, statistic in [("item", "pearson"), ("none", "spearman"), ("none", "kendall")]:
        fn = sg.correlation_method(level, statistic)
        assert sg._shortcut(fn, a[cells], b[cells], layout) is None
