"""Agreement: Krippendorff's alpha on hand-made matrices and a textbook example, consensus rho."""

import math

import numpy as np
import pytest
from django.utils import timezone

from annotate.datasets.models import Reference
from annotate.rating.models import Rating, Slot
from annotate.rating.selectors.agreement import campaign_agreement
from core.agreement import alpha, consensus_agreement, value_counts

NAN = math.nan
# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", the 4 observers × 12 units
# example with missing values: alpha is 0.743 nominal, 0.815 ordinal, 0.849 interval.
TEXTBOOK = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]
SCALE = [1, 2, 3, 4, 5]


def matrix_value_counts(matrix, domain) -> np.ndarray:
    """Value counts of a raters × references matrix with NaN where a rater did not rate."""
    triples = [
        (rater, unit, int(score))
        for rater, row in enumerate(matrix)
        for unit, score in enumerate(row)
        if not math.isnan(score)
    ]
    return value_counts(triples, domain)


@pytest.mark.parametrize(
    "level, expected", [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)]
)
def test_the_textbook_example(level, expected):
    counts = matrix_value_counts(TEXTBOOK, SCALE)
    assert counts.shape == (11, 5)  # the last unit has one value and drops out
    assert alpha(counts, SCALE, level) == pytest.approx(expected, abs=5e-4)


@pytest.mark.parametrize("level", ["interval", "ordinal"])
def test_perfect_agreement_is_one(level):
    matrix = [[1, 2, 3, 4, 5], [1, 2, 3, 4, 5], [1, 2, NAN, 4, 5]]
    assert alpha(matrix_value_counts(matrix, SCALE), SCALE, level) == pytest.approx(1.0)


def test_systematic_disagreement_is_below_zero():
    matrix = [[1, 5, 1, 5], [5, 1, 5, 1]]
    assert alpha(matrix_value_counts(matrix, SCALE), SCALE, "interval") < 0


def test_hand_worked_interval_alpha():
    # Two raters, units (1,2) and (4,5); pooled values 1, 2, 4, 5 (n = 4).
    # D_o = Σ_units Σ_ordered pairs (c-k)² / (m_u - 1) / n = (2 + 2) / 4 = 1;
    # D_e = Σ_ordered pairs (c-k)² / (n (n-1)) = 2·(1+9+16+4+9+1) / 12 = 40/6;
    # alpha = 1 − D_o / D_e = 0.85
    matrix = [[1, 4], [2, 5]]
    assert alpha(matrix_value_counts(matrix, SCALE), SCALE, "interval") == pytest.approx(0.85)


def test_alpha_is_undefined_without_variation_or_overlap():
    assert alpha(matrix_value_counts([[3, 3], [3, 3]], SCALE), SCALE, "interval") is None
    assert alpha(matrix_value_counts([[1, NAN], [NAN, 5]], SCALE), SCALE, "interval") is None


def test_value_counts_are_references_by_scale_points():
    counts = value_counts([(1, 10, 1), (2, 10, 5), (3, 10, 5), (1, 11, 2)], SCALE)
    assert counts.tolist() == [[1, 0, 0, 0, 2]]


def test_consensus_uses_the_other_raters_only():
    # Raters 1-3 agree; rater 4 reverses the order, which the others' mean still follows.
    triples = [
        (r, ref, s)
        for ref, scores in enumerate([(1, 1, 1, 5), (2, 2, 2, 4), (4, 4, 4, 2), (5, 5, 5, 1)])
        for r, s in zip((1, 2, 3, 4), scores)
    ]
    result = consensus_agreement(triples)
    assert result[1]["n"] == 4 and result[1]["rho"] == pytest.approx(1.0)
    assert result[4]["rho"] == pytest.approx(-1.0)


def test_consensus_needs_three_shared_references():
    result = consensus_agreement([(1, 1, 3), (2, 1, 4), (1, 2, 5), (2, 2, 1)])
    assert result[1] == {"rho": None, "n": 2}


@pytest.mark.django_db
def test_campaign_agreement_over_counted_ratings(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_unit=2)
    references = list(Reference.objects.order_by("pk"))
    a, b, excluded = make_rater(campaign), make_rater(campaign), make_rater(campaign)
    now = timezone.now()
    for i, reference in enumerate(references):
        for rater, score, counted in (
            (a, 1 + i % 5, True),
            (b, 1 + i % 5, True),
            (excluded, 3, False),
        ):
            Rating.objects.create(
                campaign=campaign,
                slot=Slot.objects.get(campaign=campaign, reference=reference),
                rater=rater,
                status="done",
                score=score,
                counted=counted,
                started_at=now,
                finished_at=now,
            )
    result = campaign_agreement(campaign=campaign)
    assert result.alpha_interval == pytest.approx(1.0)
    assert result.alpha_ordinal == pytest.approx(1.0)
    assert (result.units, result.ratings, result.raters) == (6, 12, 2)
    assert result.per_rater[a.pk]["rho"] == pytest.approx(1.0)
    assert result.per_rater[excluded.pk] == {"rho": None, "n": 6}  # never varies
    assert np.isfinite(result.per_rater[b.pk]["rho"])


@pytest.mark.django_db
def test_campaign_agreement_of_an_empty_campaign(make_campaign):
    result = campaign_agreement(campaign=make_campaign())
    assert (result.alpha_interval, result.units, result.per_rater) == (None, 0, {})
