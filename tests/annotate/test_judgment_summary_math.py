"""A judgment set's summary on hand-made judgments: the mean of item means (and where it is the
plain mean), the seeded item bootstrap against a loop written out, the judges' alpha against
Krippendorff's own worked example, and a set of aggregated scores that has no agreement."""

import csv
import io
import math

import numpy as np
import pytest

from annotate.judgments import summary_math
from annotate.judgments.summary_exports import NO_INDIVIDUAL, summary_csv, summary_payload
from annotate.judgments.summary_math import judgments_summary

# (judge, item, system, criterion, score). System A has 2, 1, 3 and 1 judges on its items:
# item means 4, 2, 3, 5 → 3.5, while the plain mean of its 7 scores is 24 / 7. System B has
# two judges on every item: item means 1.5, 3, 3, 5 → 3.125, the plain mean of its 8 scores.
UNEQUAL = [("j1", "i1", "A", "rel", 5), ("j2", "i1", "A", "rel", 3), ("j1", "i2", "A", "rel", 2)]
UNEQUAL += [("j1", "i3", "A", "rel", 4), ("j2", "i3", "A", "rel", 4), ("j3", "i3", "A", "rel", 1)]
UNEQUAL += [("j2", "i4", "A", "rel", 5)]
EQUAL = [
    (judge, item, "B", "rel", score)
    for item, scores in (("i1", (1, 2)), ("i2", (3, 3)), ("i3", (2, 4)), ("i4", (5, 5)))
    for judge, score in zip(("j1", "j2"), scores, strict=True)
]
ROWS = UNEQUAL + EQUAL


def _cell(summary, system, criterion="rel"):
    return next(s for s in summary.systems if s.system == system).cells[criterion]


def test_the_mean_averages_each_items_judges_first_then_the_items():
    summary = judgments_summary(ROWS, criteria=["rel"])
    a, b = _cell(summary, "A"), _cell(summary, "B")
    assert a.mean == pytest.approx((4 + 2 + 3 + 5) / 4) and a.mean != pytest.approx(24 / 7)
    assert (a.items, a.judgments) == (4, 7)
    assert b.mean == pytest.approx(np.mean([r[4] for r in EQUAL]))  # equal judges: plain mean
    assert (b.items, b.judgments) == (4, 8)
    assert [s.system for s in summary.systems] == ["A", "B"]  # best first
    assert (summary.items, summary.judgments) == (4, 15)


def _loop_interval(rows, system, draws, seed):
    """The bootstrap written out: draw items with replacement, average the system's item means
    over the drawn items it was judged on, take the 2.5th and 97.5th percentiles."""
    items = sorted({r[1] for r in rows})
    per_item = {
        item: np.mean([r[4] for r in rows if r[1] == item and r[2] == system]) for item in items
    }
    drawn = np.random.default_rng(seed).integers(0, len(items), size=(draws, len(items)))
    means = [np.mean([per_item[items[k]] for k in draw]) for draw in drawn]
    return np.percentile(means, [2.5, 97.5])


def test_the_interval_is_the_seeded_item_bootstrap_and_holds_the_mean():
    summary = judgments_summary(ROWS, criteria=["rel"])
    for system in ("A", "B"):
        cell = _cell(summary, system)
        low, high = _loop_interval(ROWS, system, summary_math.DRAWS, summary_math.SEED)
        assert (cell.low, cell.high) == (pytest.approx(low), pytest.approx(high))
        assert cell.low <= cell.mean <= cell.high and cell.low < cell.high
    assert judgments_summary(ROWS, criteria=["rel"]) == summary  # the same every time
    other_seed = judgments_summary(ROWS, criteria=["rel"], seed=summary_math.SEED + 1)
    assert other_seed.systems[0].cells != summary.systems[0].cells


def test_drawing_in_chunks_gives_the_same_interval(monkeypatch):
    whole = judgments_summary(ROWS, criteria=["rel"])
    monkeypatch.setattr(summary_math, "CELLS_PER_CHUNK", 12)  # 3 draws of 4 items a chunk
    assert judgments_summary(ROWS, criteria=["rel"]) == whole


def test_a_system_judged_on_some_items_is_averaged_over_those_only():
    rows = [*ROWS, ("j1", "i1", "C", "rel", 1), ("j1", "i2", "C", "rel", 3)]
    cell = _cell(judgments_summary(rows), "C")
    assert (cell.mean, cell.items, cell.judgments) == (2.0, 2, 2)
    assert 1.0 <= cell.low <= cell.mean <= cell.high <= 3.0


# Krippendorff (2011), "Computing Krippendorff's alpha-reliability": 4 observers × 12 units with
# missing values (None); alpha (interval) is 0.849.
TEXTBOOK = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def test_alpha_between_judges_is_krippendorffs_worked_example():
    rows = [
        (f"judge{j}", f"u{u}", "S", "quality", float(score))
        for j, observer in enumerate(TEXTBOOK)
        for u, score in enumerate(observer)
        if score is not None
    ]
    summary = judgments_summary(rows)
    assert summary.individual
    [agreement] = summary.agreement
    assert agreement.alpha == pytest.approx(0.849, abs=5e-4)
    assert (agreement.units, agreement.judges) == (11, 4)  # u11 was judged once


def test_units_are_system_and_item_pairs_per_criterion():
    # Two systems on one item, judges agreeing within each system but not across: alpha is 1.
    rows = [(j, "i1", s, "rel", score) for s, score in (("A", 5), ("B", 1)) for j in ("x", "y")]
    rows += [(j, "i1", s, "inf", score) for s, score in (("A", 2), ("B", 2)) for j in ("x", "y")]
    summary = judgments_summary(rows, criteria=["rel", "inf"])
    rel, inf = summary.agreement
    assert (rel.criterion, rel.alpha, rel.units) == ("rel", 1.0, 2)
    assert (inf.criterion, inf.alpha) == ("inf", None)  # no variation: undefined


def test_a_set_of_aggregated_scores_has_no_agreement():
    rows = [("mean", f"i{k}", s, "rel", float(k % 5 + (s == "A"))) for k in range(20) for s in "AB"]
    summary = judgments_summary(rows)
    assert not summary.individual and summary.agreement == []
    payload = summary_payload(_FakeSet(), summary)
    assert payload["agreement"] == {"available": False, "note": NO_INDIVIDUAL, "criteria": []}
    assert NO_INDIVIDUAL.startswith("individual judgments not available")


def test_criteria_follow_the_sets_order_and_systems_the_first_criterion():
    rows = [("j", "i1", "A", "rel", 1.0), ("j", "i1", "B", "rel", 5.0)]
    rows += [("j", "i1", "A", "inf", 5.0), ("j", "i1", "B", "inf", 1.0), ("j", "i1", "A", "z", 3.0)]
    summary = judgments_summary(rows, criteria=["inf", "rel"])
    assert summary.criteria == ["inf", "rel", "z"]
    assert [s.system for s in summary.systems] == ["A", "B"]
    assert summary.table()[1] == (
        "B",
        [summary.systems[1].cells["inf"], summary.systems[1].cells["rel"], None],
    )
    assert judgments_summary(rows, criteria=["rel"]).systems[0].system == "B"


def test_non_finite_scores_are_left_out_and_no_rows_summarise_to_nothing():
    summary = judgments_summary([("j", "i1", "A", "rel", math.nan), ("j", "i1", "A", "rel", 2.0)])
    assert _cell(summary, "A").judgments == 1
    empty = judgments_summary([])
    assert (empty.systems, empty.criteria, empty.items, empty.agreement) == ([], [], 0, [])


def test_the_csv_has_a_line_per_system_and_criterion_best_first():
    summary = judgments_summary(ROWS, criteria=["rel"])
    header, *lines = list(csv.reader(io.StringIO(summary_csv(summary))))
    assert header == ["system", "criterion", "mean", "low", "high", "items", "judgments"]
    assert [line[:3] for line in lines] == [["A", "rel", "3.5000"], ["B", "rel", "3.1250"]]
    assert lines[0][5:] == ["4", "7"]


class _FakeSet:
    pk, name, split, report = 7, "set", "test", {}

    class dataset:
        slug = "chat"


@pytest.mark.slow
def test_the_interval_covers_the_true_mean_in_about_95_percent_of_evaluations():
    """Against a known truth, not another implementation (187 of 200 cover at this seed): 200
    simulated evaluations of one system on 60 items drawn from a world whose mean item score
    is 3.4 (items differ, each judged by 3 judges on a 1–5 scale). With a true coverage of
    95%, 178 or fewer covering intervals of 200 happen with probability about 0.002 (and 198
    or more about 0.04), the false-failure rate of this seeded test; a percentile bootstrap
    of 60 items covers a little less than 95%, so the band is [0.89, 0.99]."""
    rng = np.random.default_rng(2026)
    truth, covered = 3.4, 0
    world_mean = _rounded_world_mean(truth)
    for evaluation in range(200):
        quality = np.clip(rng.normal(truth, 0.8, 60), 1, 5)
        rows = [
            (
                f"j{k}",
                f"i{i}",
                "sys",
                "quality",
                float(np.clip(np.rint(q + rng.normal(0, 0.7)), 1, 5)),
            )
            for i, q in enumerate(quality)
            for k in range(3)
        ]
        cell = judgments_summary(rows, criteria=["quality"], draws=400, seed=evaluation)
        (system,) = cell.systems
        low, high = system.cells["quality"].low, system.cells["quality"].high
        covered += low <= world_mean <= high
    assert 178 <= covered <= 198, covered


def _rounded_world_mean(truth):
    """The world's mean judgment: the expected value of a clipped, rounded normal judgment of a
    clipped normal item quality, by a large Monte Carlo draw (seeded)."""
    rng = np.random.default_rng(7)
    quality = np.clip(rng.normal(truth, 0.8, 2_000_000), 1, 5)
    return float(np.clip(np.rint(quality + rng.normal(0, 0.7, quality.size)), 1, 5).mean())
