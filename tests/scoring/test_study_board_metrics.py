"""A study of a human evaluation of a leaderboard's submissions meta-evaluates the metrics the
board's owner uploaded, beside the built-in ones, with the same `external` option."""

import pytest
from django.core.exceptions import ValidationError

from annotate.rating.services.assignment import rating_next
from annotate.rating.services.campaigns import campaign_join
from annotate.rating.services.ratings import rating_submit
from scoring.leaderboards.services.external_metrics import leaderboard_metrics_import
from scoring.leaderboards.services.human_evaluation import human_evaluation_create
from scoring.study.services import study_create, study_data
from tests.conftest import leaderboard_of, release_of, user_of
from tests.runs_kit import execute
from tests.scoring.conftest import GOOD, NONSENSE, PERFECT
from tests.scoring.test_human_evaluation import live_items
from tests.scoring.world_kit import scored_now

# A board scored, a campaign rated, a study run: make test and CI, not test-fast.
pytestmark = [pytest.mark.django_db, pytest.mark.slow]
ITEMS = ("d1", "d2", "d3", "d5")
QUALITY = {"exact": 5, "close": 3, "noise": 1}
OPTIONS = {"unit_size": 1, "assignments": 20, "metrics": ["bleu"], "sweeps": False}


def _score(method: str, item: str) -> int:
    # Item parity moves the two better systems by one, so human differences vary across units.
    return QUALITY[method] - (int(item[1:]) % 2 if method != "noise" else 0)


@pytest.fixture
def rated(owner):
    board = leaderboard_of(owner, release=release_of(owner))
    live_items(board.release)
    three = [
        scored_now(board, owner, hyps, method=method)
        for hyps, method in ((PERFECT, "exact"), (GOOD, "close"), (NONSENSE, "noise"))
    ]
    campaign = human_evaluation_create(
        leaderboard=board, user=owner, submissions=three, ratings_per_unit=1, control_rate=0
    )
    person = user_of("person", "rater")
    campaign_join(campaign=campaign, rater=person)
    while (rating := rating_next(campaign=campaign, rater=person)) is not None:
        method = rating.slot.system_a.name.split(": ", 1)[1]
        score = _score(method, rating.slot.item.external_id)
        rating_submit(rating_id=rating.pk, rater=person, score=score)
    # "oracle" is the raters' own score; "loss" the same, negated, with lower better.
    rows = [
        f"{item}\t{s.pk}\t{_score(s.method, item)}\t{-_score(s.method, item)}"
        for s in three
        for item in ITEMS
    ]
    text = "\n".join(["item\tsystem\toracle\tloss", *rows])
    leaderboard_metrics_import(
        leaderboard=board, user=owner, name="m.tsv", data=text.encode(), lower_is_better=["loss"]
    )
    return board, campaign


def _study(owner, board, campaign, **options):
    return study_create(
        owner=owner,
        name="Board study",
        release=board.release,
        split="dev",
        output_campaign=campaign,
        options={**OPTIONS, **options},
        send=False,
    )


def _keys(rows):
    return {r["key"] for r in rows}


def test_the_boards_metrics_are_meta_evaluated_beside_the_builtins(rated, owner):
    board, campaign = rated
    study = _study(owner, board, campaign)
    data = study_data(study)
    assert [e.name for e in data.external] == ["loss", "oracle"]
    oracle = next(e for e in data.external if e.name == "oracle")
    system = next(s for s in data.outputs if s.endswith(": exact"))
    assert oracle.scores[system].tolist() == [_score("exact", i) for i in data.item_ids]
    assert execute(study.run).state == "succeeded"
    study.refresh_from_db()
    result = study.result
    segments = next(iter(result["segments"].values()))["correlations"]
    systems = next(iter(result["systems"].values()))["correlations"]
    assert {"external:oracle", "external:loss"} <= _keys(segments) & _keys(systems)
    row = next(r for r in segments if r["key"] == "external:oracle")
    assert row["label"] == "external: oracle"
    assert row["none"]["pearson"]["value"] == pytest.approx(1.0)
    loss = next(r for r in systems if r["key"] == "external:loss")
    assert loss["signature"].startswith("external: loss|lower is better")
    assert loss["spearman"]["value"] == pytest.approx(1.0)
    # As a judgment set's: the pair level (units of items) is the built-ins' alone, and says so.
    assert any("left out of the pair level" in n for n in result["notes"])


def test_the_external_option_chooses_among_the_boards_metrics(rated, owner):
    board, campaign = rated
    assert [
        e.name for e in study_data(_study(owner, board, campaign, external=["oracle"])).external
    ] == ["oracle"]
    assert study_data(_study(owner, board, campaign, external=[])).external == []
    with pytest.raises(ValidationError) as refused:
        _study(owner, board, campaign, external=["comet"])
    message = str(refused.value)
    assert "no uploaded metric 'comet'" in message and "loss, oracle" in message


def test_a_pairwise_evaluation_of_the_board_runs_and_says_what_it_left_out(owner):
    board = leaderboard_of(owner, release=release_of(owner))
    live_items(board.release)
    two = [scored_now(board, owner, PERFECT, method="exact"),
           scored_now(board, owner, NONSENSE, method="noise")]  # fmt: skip
    campaign = human_evaluation_create(
        leaderboard=board, user=owner, submissions=two, mode="pairwise", ratings_per_unit=1,
        control_rate=0,
    )  # fmt: skip
    person = user_of("person", "rater")
    campaign_join(campaign=campaign, rater=person)
    while (rating := rating_next(campaign=campaign, rater=person)) is not None:
        rating_submit(rating_id=rating.pk, rater=person, score=1 if rating.a_on_left else 5)
    rows = [f"{item}\t{s.pk}\t{1.0 if s.method == 'exact' else 0.0}" for s in two for item in ITEMS]
    text = "\n".join(["item\tsystem\toracle", *rows])
    leaderboard_metrics_import(leaderboard=board, user=owner, name="m.tsv", data=text.encode())
    study = _study(owner, board, campaign)
    assert [e.name for e in study_data(study).external] == ["oracle"]
    assert execute(study.run).state == "succeeded"
    study.refresh_from_db()
    assert study.result["n_units"] > 0
    # No per-response human scores, so no segment or system level; the pair level says why
    # the uploaded metric is not in it.
    assert any("external: oracle" in n and "left out" in n for n in study.result["notes"])
