"""Adaptive rating, end to end on the product's parts: a rated dataset released, a leaderboard
with two systems that match different references, and an adaptive campaign on the dataset that
learns from the board which references decide the close pair."""

import numpy as np
import pytest

from annotate.accounts.models import Role
from annotate.datasets.models import Reference
from annotate.rating import adaptive_math
from annotate.rating.models import Slot
from annotate.rating.services.adaptive import campaign_priorities_refresh
from annotate.rating.services.assignment import rating_next
from annotate.rating.services.ratings import rating_submit
from annotate.rating.services.weights import weights_recompute_campaign
from annotate.releases.services import release_publish
from scoring.leaderboards.models import Team
from scoring.leaderboards.selectors.leaderboard_table import ranked_entries
from scoring.leaderboards.selectors.leaderboards import leaderboard_item_ids
from scoring.leaderboards.selectors.raters import board_references, view_rank_stability
from scoring.leaderboards.selectors.sensitivity import board_sensitivity, dataset_sensitivity
from scoring.leaderboards.selectors.stored import load_profile
from scoring.leaderboards.services.leaderboards import leaderboard_create
from scoring.metrics import get_metric, score_gradient
from tests.annotate.release_kit import freeze, world_makers
from tests.conftest import user_of
from tests.scoring.world_kit import scored_now, shared_scoring_world

pytestmark = pytest.mark.django_db

GOAL, MISSED, PARROT = (
    "that last goal was unbelievable",
    "i missed it, was it good?",
    ("yes, what a finish!"),
)
# c1's references rated by three raters; c3's one reference liked by all.
SCORES = {GOAL: [5, 4, 5], MISSED: [3, 5, 2], PARROT: [1, 2, 1]}


def _rated_board(owner):
    """A dataset rated by three raters through the rating services, released, and a dev board
    with two scored systems (of another team) that copy different references."""
    make_dataset, make_campaign, make_rater = world_makers(owner)
    other = user_of("other", Role.RESEARCHER)
    dataset = make_dataset(visibility="public")
    first = make_campaign(dataset=dataset, ratings_per_unit=3)
    texts = dict(Reference.objects.filter(item__split__dataset=dataset).values_list("pk", "text"))
    for k in range(3):
        rater = make_rater(first)
        while (lease := rating_next(campaign=first, rater=rater)) is not None:
            score = SCORES.get(texts[lease.slot.reference_id], [5, 4, 5])[k]
            rating_submit(rating_id=lease.pk, rater=rater, score=score)
    weights_recompute_campaign(campaign_id=first.pk)
    release = release_publish(release=freeze(dataset, first, owner, unrated="zero"))
    board = leaderboard_create(
        owner=owner, release=release, split="dev", name="Chat dev", slug="chat-dev"
    )
    assert leaderboard_item_ids(leaderboard=board) == ["c1", "c3"]
    for name, c1 in (("goal-team", GOAL), ("missed-team", "i missed it, was it great?")):
        team = Team.objects.create(name=name)
        team.members.add(other)
        scored_now(board, other, [c1, "sounds like a perfect weekend"], method=name, team_name=name)
    return {"dataset": dataset, "board": board}


# Built once for the module: each test reads the rows again in a transaction of its own.
shared, world, dataset, board = shared_scoring_world(_rated_board, "dataset", "board")


@pytest.fixture
def refs(dataset):
    """The dataset's references' ids by their texts."""
    texts = Reference.objects.filter(item__split__dataset=dataset).values_list("pk", "text")
    return {text: pk for pk, text in texts}


def test_the_board_reports_which_references_decide_its_close_pair(dataset, board, refs):
    report = dataset_sensitivity(dataset.pk)
    assert report.boards[0]["slug"] == "chat-dev" and report.boards[0]["pairs"] == 1
    # The two systems differ on the references they copy: those two weights move the pair's
    # difference; the parroted message, which neither says, does not.
    assert report.terms[refs[GOAL]] > 0 and report.terms[refs[MISSED]] > 0
    assert report.terms.get(refs[PARROT], 0.0) == 0.0
    # The numbers: closeness of the pair times the squared difference of the gradients.
    _, ranked = ranked_entries(leaderboard=board, user=board.owner)
    weights = board_references(leaderboard=board).weights
    metric = get_metric("dbleu")
    grads = [score_gradient(metric, load_profile(s.profile_file), weights) for _, s in ranked]
    holds = view_rank_stability(leaderboard=board, ranked=ranked).stability.neighbour_order
    expected = adaptive_math.closeness(holds)[0] * (grads[0] - grads[1]) ** 2
    sources = board_references(leaderboard=board).source_ids
    got = np.array([report.terms.get(s, 0.0) for s in sources])
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_an_adaptive_campaign_sends_its_next_ratings_where_the_board_needs_them(
    dataset, refs, make_campaign, make_rater
):
    second = make_campaign(
        dataset=dataset, name="Second opinions", assignment="adaptive", uniform_share=0.0
    )
    campaign_priorities_refresh(campaign_id=second.pk)
    second.refresh_from_db()
    sens = dict(Slot.objects.filter(campaign=second).values_list("reference_id", "sensitivity"))
    assert sens[refs[GOAL]] > 0 and sens[refs[MISSED]] > 0 and sens[refs[PARROT]] == 0
    assert second.priorities_summary["boards"][0]["name"] == "Chat dev"
    # Three raters ask at once: each takes the slot worth most given the leases before it. The
    # uniform order would hand out the parroted message third; adaptive keeps to the two that
    # decide the pair.
    taken = {refs[GOAL]: 0, refs[MISSED]: 0}
    for _ in range(3):
        expected = max(
            taken,
            key=lambda r: adaptive_math.rating_value(sens[r], taken[r], second.adaptive_a),
        )
        lease = rating_next(campaign=second, rater=make_rater(second))
        assert lease.slot.reference_id == expected
        taken[expected] += 1
    assert sum(taken.values()) == 3


def test_a_board_with_one_entry_or_an_unweighted_metric_reports_nothing(dataset, board, owner):
    bleu_board = leaderboard_create(
        owner=owner,
        release=board.release,
        split="dev",
        name="Plain",
        slug="plain",
        primary_metric="bleu",
    )
    assert board_sensitivity(leaderboard=bleu_board).terms == {}
    assert [b["slug"] for b in dataset_sensitivity(dataset.pk).boards] == ["chat-dev"]
