"""The demo's finished story, built through the product's own services as people would build it:

1. ada's dataset (thirty conversations with candidate references, `annotate/datasets`);
2. a first rating campaign that three simulated raters finish — they disagree now and then, so
   some references get extra ratings — and its live weights and quality control;
3. release 1.0.0 of the dataset, frozen from that campaign and published (test split hidden);
4. a test leaderboard with four baseline systems, scored in this process with intervals (over
   the items, and over the items and the raters) and rank groups, and an open dev leaderboard
   with the two best of them;
5. a human evaluation of the four baselines (an output campaign the same raters finish) and a
   correlation study of the metrics against it, run in this process;
6. a second campaign, open and adaptive (its ratings go where the dev board's close pair needs
   them, within a budget), that rita and raj have joined and can rate at once.

Deterministic: the raters are seeded (services/raters.py) and their time is simulated
(services/clock.py), so the numbers are the same on every load.
"""

from __future__ import annotations

import secrets
import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db.models import Prefetch
from django.utils import timezone

from annotate.accounts.models import Role
from annotate.accounts.services import user_create
from annotate.datasets.models import Dataset, Item, Reference
from annotate.rating.models import Assignment, Campaign, Rating, Subject
from annotate.rating.services.adaptive import campaign_priorities_refresh
from annotate.rating.services.campaigns import campaign_create, campaign_join
from annotate.rating.services.qc import campaign_qc_evaluate
from annotate.rating.services.weights import weights_recompute_campaign
from annotate.releases.models import Release
from annotate.releases.services import release_freeze, release_publish
from core.runs.engine import run_execute
from core.runs.models import Run
from core.runs.selectors import runs_latest
from scoring.demo.names import (
    DEV_BOARD,
    FIRST_CAMPAIGN,
    OPEN_CAMPAIGN,
    RELEASE_VERSION,
    STUDY_NAME,
    TEST_BOARD,
)
from scoring.demo.services.clock import DemoClock
from scoring.demo.services.raters import Persona, campaign_simulate
from scoring.demo.services.systems import BASELINES, Baseline
from scoring.leaderboards.models import Leaderboard, Submission
from scoring.leaderboards.selectors.leaderboards import leaderboard_item_ids
from scoring.leaderboards.services.human_evaluation import human_evaluation_create
from scoring.leaderboards.services.leaderboards import leaderboard_create
from scoring.leaderboards.services.submissions import submission_create
from scoring.leaderboards.services.uncertainty import REPLICATES_KIND, replicates_scope
from scoring.study.models import CorrelationStudy
from scoring.study.services import study_create

OPEN_CAMPAIGN_BUDGET = 60  # ratings the open campaign collects in all

# The simulated raters of the finished campaigns (they never log in).
PERSONAS = (("mia", 0.0, (4.0, 11.0)), ("leo", -0.35, (3.0, 8.0)), ("noor", 0.3, (5.0, 14.0)))
# A reference's true quality on the 1–5 scale, from the dataset's provenance.
QUALITY = {"good": 4.6, "fair": 3.0, "poor": 1.4}
STUDY_OPTIONS = {
    "unit_size": 1,  # 10 test items: M = 1 gives every pair its 10 units
    "assignments": 200,
    "bootstrap": 200,
    "metrics": ["bleu", "dbleu", "sbleu"],
    "thetas": [0.6, 0.0, -1.0],
    "unit_sizes": [1, 2, 5],
}
# The story happened over the past week: its first rating a week before the day it is loaded.
STORY_DAYS = 7


@dataclass(frozen=True)
class Story:
    campaign: Campaign
    release: Release
    test_board: Leaderboard
    dev_board: Leaderboard
    human_evaluation: Campaign
    study: CorrelationStudy
    open_campaign: Campaign


def story_start() -> datetime:
    today = timezone.now().replace(hour=9, minute=0, second=0, microsecond=0)
    return today - timedelta(days=STORY_DAYS)


def story_exists() -> bool:
    return Leaderboard.objects.filter(slug=TEST_BOARD).exists()


def _personas() -> list[Persona]:
    User = get_user_model()
    made = []
    for name, leaning, seconds in PERSONAS:
        user = User.objects.filter(username=name).first() or user_create(
            username=name, password=secrets.token_urlsafe(24), role=Role.RATER
        )
        made.append(Persona(user=user, leaning=leaning, seconds=seconds))
    return made


def _reference_judge(rating: Rating) -> tuple[str, float]:
    reference = rating.slot.reference
    if reference is None:  # not a reference campaign's slot: no opinion either way
        return str(rating.slot_id), QUALITY["fair"]
    quality = (reference.provenance or {}).get("quality", "fair")
    return f"{rating.slot.item.external_id}/{reference.text}", QUALITY[quality]


def _rated_campaign(owner: User, dataset: Dataset, personas, clock: DemoClock) -> Campaign:
    campaign = campaign_create(
        owner=owner,
        dataset=dataset,
        name=FIRST_CAMPAIGN,
        instructions="Rate how good each candidate is as the next turn of the conversation.",
        ratings_per_unit=2,
    )
    return _simulated(campaign, personas, _reference_judge, clock)


def _simulated(campaign: Campaign, personas, judge, clock: DemoClock) -> Campaign:
    """The campaign rated to the end by the personas, then what its debounced tasks do after the
    last rating (no worker runs during the load): weights, on references; quality control."""
    campaign_simulate(campaign=campaign, personas=personas, judge=judge, clock=clock)
    if campaign.subject == Subject.REFERENCES:
        weights_recompute_campaign(campaign_id=campaign.pk)
    campaign_qc_evaluate(campaign_id=campaign.pk)
    campaign.refresh_from_db()
    return campaign


def _published(owner: User, dataset: Dataset, campaign: Campaign) -> Release:
    release = release_freeze(
        dataset=dataset,
        version=RELEASE_VERSION,
        created_by=owner,
        campaign=campaign,
        public_splits=["dev"],
        include_ratings=True,
        citation="@misc{demo-dialogue, title={Demo: everyday dialogue}, year={2026}}",
        description="Weights from the first round of ratings; the test split stays hidden.",
        unrated="exclude",
    )
    return release_publish(release=release, unrated="exclude")


def _execute(run_id: int | None) -> None:
    """Run a queued run here, as a worker would (its message, sent on commit, then finds it
    ended and does nothing)."""
    if run_id is None:
        raise ValueError("The service queued no run.")
    run = Run.objects.get(pk=run_id)
    run_execute(run_id=run.pk, attempt=run.attempt)


def _items(dataset: Dataset, split: str) -> dict[str, Item]:
    items = Item.objects.filter(split__dataset=dataset, split__name=split).prefetch_related(
        Prefetch("references", queryset=Reference.objects.order_by("position"))
    )
    return {item.external_id: item for item in items}


def _baseline(board: Leaderboard, owner: User, baseline: Baseline, items) -> Submission:
    ids = leaderboard_item_ids(leaderboard=board)
    data = "".join(baseline.reply(items[i]) + "\n" for i in ids).encode()
    submission = submission_create(
        leaderboard=board,
        user=owner,
        lines=data.splitlines(keepends=True),
        size=len(data),
        filename=f"{baseline.method.lower().replace(' ', '-')}.txt",
        method=baseline.method,
        description=baseline.description,
        is_baseline=True,
    )
    _execute(submission.run_id)
    # Its replicates (the interval with raters, the rank grid) come in a run of their own.
    replicates = runs_latest(kind=REPLICATES_KIND, scope=replicates_scope(submission.pk))
    _execute(replicates.pk if replicates is not None else None)
    submission.refresh_from_db()
    return submission


# The two boards by split: slug, title, description.
BOARDS = {
    "test": (
        TEST_BOARD,
        "Demo dialogue: test",
        "The hidden test split: scores count, references stay secret.",
    ),
    "dev": (DEV_BOARD, "Demo dialogue: dev", "The public dev split: try your system here first."),
}


def _board(owner: User, release: Release, split: str) -> Leaderboard:
    slug, name, description = BOARDS[split]
    return leaderboard_create(
        owner=owner, release=release, split=split, name=name, slug=slug, description=description
    )


def _output_judge(qualities: dict[str, float]):
    """Judge of the human evaluation: a system's quality, moved by how hard the item is."""

    def judge(rating: Rating) -> tuple[str, float]:
        slot = rating.slot
        item, system = slot.item.external_id, slot.system_a.name if slot.system_a else ""
        hardness = (zlib.crc32(item.encode()) % 5 - 2) * 0.2  # −0.4 … +0.4 by item
        return f"{item}/{system}", qualities.get(system, 3.0) + hardness

    return judge


def _human_evaluation(
    owner: User, board: Leaderboard, baselines: list[Submission], personas, clock: DemoClock
) -> Campaign:
    # Each rater can rate each of the 40 outputs once: controls every fifth answer give quality
    # control the three degraded outputs per rater it waits for before a verdict.
    campaign = human_evaluation_create(
        leaderboard=board, user=owner, submissions=baselines, ratings_per_unit=3, control_rate=0.2
    )
    by_method = {b.method: b.quality for b in BASELINES}
    qualities = {
        system.name: by_method[system.name.rsplit(": ", 1)[-1]] for system in campaign.systems.all()
    }
    return _simulated(campaign, personas, _output_judge(qualities), clock)


def _study(owner: User, release: Release, campaign: Campaign) -> CorrelationStudy:
    study = study_create(
        owner=owner,
        name=STUDY_NAME,
        release=release,
        split="test",
        output_campaign=campaign,
        options=STUDY_OPTIONS,
        send=False,
    )
    _execute(study.run_id)
    study.refresh_from_db()
    return study


def _open_campaign(owner: User, dataset: Dataset) -> Campaign:
    campaign = campaign_create(
        owner=owner,
        dataset=dataset,
        name=OPEN_CAMPAIGN,
        split=dataset.splits.get(name="dev"),
        instructions="Rate how good each candidate is as the next turn of the conversation.",
        ratings_per_unit=2,
        # Second opinions where the dev board needs them: its close pair's ΔBLEU difference
        # moves most with those references' weights (the uniform quarter covers the rest).
        assignment=Assignment.ADAPTIVE,
        uniform_share=0.25,
        rating_budget=OPEN_CAMPAIGN_BUDGET,
    )
    User = get_user_model()
    for username in ("rita", "raj"):
        campaign_join(campaign=campaign, rater=User.objects.get(username=username))
    campaign_priorities_refresh(campaign_id=campaign.pk)  # as the worker would, in this process
    campaign.refresh_from_db()
    return campaign


def story_build(*, owner: User, dataset: Dataset, clock: DemoClock) -> Story:
    """Every chapter of the story, in order (the caller holds one transaction around it)."""
    personas = _personas()
    campaign = _rated_campaign(owner, dataset, personas, clock)
    release = _published(owner, dataset, campaign)
    test_board = _board(owner, release, "test")
    test_items = _items(dataset, "test")
    baselines = [_baseline(test_board, owner, b, test_items) for b in BASELINES]
    dev_board = _board(owner, release, "dev")
    dev_items = _items(dataset, "dev")
    # The two best baselines, close to each other: the open campaign's adaptive assignment
    # learns from this pair which references to rate again.
    for baseline in BASELINES[:2]:
        _baseline(dev_board, owner, baseline, dev_items)
    human = _human_evaluation(owner, test_board, baselines, personas, clock)
    study = _study(owner, release, human)
    return Story(
        campaign=campaign,
        release=release,
        test_board=test_board,
        dev_board=dev_board,
        human_evaluation=human,
        study=study,
        open_campaign=_open_campaign(owner, dataset),
    )
