"""A world that grows: every model with rows, every list with entries, more of both each step.

`build_world()` makes the parents a list hangs from (a dataset, its campaign, a published
release, a leaderboard); `grow(world, k)` adds one unit of everything — rows in those parents
(items, candidates, ratings, weights, releases, submissions…) and new top-level rows (datasets,
campaigns, corpora, leaderboards, studies, runs, users…). Query-count tests measure after one
unit and again after three.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import Group, User
from django.utils import timezone

from annotate.accounts.models import Role
from annotate.accounts.services import invitation_create, user_create
from annotate.datasets.models import Dataset, Reference, Visibility
from annotate.datasets.services.datasets import dataset_create, dataset_import_file
from annotate.judgments.models import EvalSystem, JudgmentSet
from annotate.judgments.services.importing import bundle_parse, judgments_import
from annotate.judgments.services.mappings import column_mapping_remember
from annotate.judgments.services.metrics import external_metrics_import
from annotate.judgments.services.systems import eval_system_set_outputs
from annotate.mining.models import DismissedCandidate
from annotate.mining.services.corpora import corpus_create
from annotate.rating.models import Campaign, Mode, Rating, RatingStatus, Slot, Subject
from annotate.rating.services.assignment import rating_next
from annotate.rating.services.campaigns import campaign_create, campaign_join, campaign_sync_slots
from annotate.rating.services.ratings import rating_submit
from annotate.rating.services.weights import weights_recompute_campaign
from annotate.releases.models import Release, SplitReveal
from scoring.leaderboards.models import Leaderboard
from scoring.leaderboards.selectors.leaderboards import leaderboard_item_ids
from scoring.leaderboards.services import references as references_service
from scoring.leaderboards.services.external_metrics import leaderboard_metrics_import
from scoring.leaderboards.services.leaderboards import leaderboard_create
from scoring.leaderboards.services.teams import team_create
from scoring.study.services import study_create
from tests.annotate.release_kit import published
from tests.runs_kit import execute, upload

PASSWORD = "a-long-test-password-42"
DEV_IDS = ("p1", "p2")


def _line(item_id: str, split: str, refs: list[dict]) -> str:
    return json.dumps(
        {
            "id": item_id,
            "split": split,
            "context": ["hi"],
            "message": f"message {item_id}",
            "references": refs,
        }
    )


def _ref(text: str, origin: str = "original", **provenance: object) -> dict:
    return {"text": text, "origin": origin, "provenance": provenance}


def _import(dataset: Dataset, lines: list[str]) -> None:
    data = ("\n".join(lines) + "\n").encode()
    dataset_import_file(dataset=dataset, lines=data.splitlines(keepends=True), fmt="jsonl")


@pytest.fixture(autouse=True)
def _own_storage(settings, tmp_path):
    """Files, and the cached reference indexes, of this test only (import it with the world)."""
    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.VAR_DIR = tmp_path / "var"
    references_service._INDEX_CACHE.clear()
    yield
    references_service._INDEX_CACHE.clear()


@dataclass
class World:
    owner: User
    dataset: Dataset
    campaign: Campaign
    release: Release
    board: Leaderboard
    participant: User  # submits to the board, joins a team and a campaign at every step
    outputs: Campaign | None = None  # the latest campaign on outputs: every system, all rated
    judgment_set: JudgmentSet | None = None  # the first: one more uploaded metric each step


def _rate(campaign: Campaign, rater: User, references) -> None:
    campaign_sync_slots(campaign=campaign)  # references added since the campaign began
    now = timezone.now()
    for reference in references:
        slot = Slot.objects.get(campaign=campaign, reference=reference)
        rating = Rating(campaign=campaign, slot=slot, rater=rater)
        rating.status, rating.score = RatingStatus.DONE, 3 + reference.position % 3
        rating.started_at = rating.finished_at = now
        rating.save()


def build_world() -> World:
    owner = user_create(username="owner", password=PASSWORD, role=Role.RESEARCHER, is_staff=True)
    dataset = dataset_create(owner=owner, name="Main", slug="main", visibility=Visibility.PUBLIC)
    _import(
        dataset,
        [
            _line("p1", "dev", [_ref("the match was great"), _ref("not good")]),
            _line("p2", "dev", [_ref("going to the beach"), _ref("no plans")]),
            _line("p3", "test", [_ref("the hidden answer"), _ref("no answer")]),
        ],
    )
    campaign = campaign_create(owner=owner, dataset=dataset, name="Main round", control_rate=0)
    for k in range(2):
        rater = user_create(username=f"first{k}", password=PASSWORD, role=Role.RATER)
        campaign_join(campaign=campaign, rater=rater)
        _rate(campaign, rater, Reference.objects.filter(item__split__dataset=dataset))
    weights_recompute_campaign(campaign_id=campaign.pk)
    release = published(dataset, campaign, owner, citation="", public_splits=["dev"])
    board = leaderboard_create(
        owner=owner, release=release, split="dev", name="Main", slug="main-board"
    )
    participant = user_create(username="participant", password=PASSWORD, role=Role.RESEARCHER)
    return World(owner, dataset, campaign, release, board, participant)


def _people(world: World, k: int) -> tuple[User, User]:
    rater = user_create(username=f"rater{k}", password=PASSWORD, role=Role.RATER)
    participant = user_create(username=f"participant{k}", password=PASSWORD)
    invitation_create(created_by=world.owner, note=f"unit {k}")
    Group.objects.create(name=f"group {k}")
    return rater, participant


def _datasets(world: World, k: int, rater: User) -> None:
    """A new dataset (revealed test split), new items and candidates in the main one, a new
    campaign, ratings and weights in the main campaign, a new release."""
    extra = dataset_create(
        owner=world.owner, name=f"Extra {k}", slug=f"extra{k}", visibility=Visibility.PUBLIC
    )
    _import(extra, [_line("e1", "test", [_ref("hidden")])])
    SplitReveal.objects.create(
        dataset=extra, release=world.release, split="test", revealed_by=world.owner
    )
    _import(
        world.dataset,
        [
            _line(
                f"g{k}",
                "dev",
                [
                    _ref(f"grown {k}"),
                    _ref(f"mined {k}", "mined", score=1.5 + k, corpus="c"),
                    _ref(f"parroted {k}", "parroted"),
                ],
            ),
        ],
    )
    item = Reference.objects.get(text=f"grown {k}").item
    DismissedCandidate.objects.create(
        item=item,
        key=f"{k:064d}",
        text=f"dismissed {k}",
        origin="mined",
        dismissed_by=world.owner,
    )
    dev = world.dataset.splits.get(name="dev")
    campaign_create(
        owner=world.owner, dataset=world.dataset, name=f"Round {k}", control_rate=0, split=dev
    )
    campaign_join(campaign=world.campaign, rater=rater)
    _rate(world.campaign, rater, Reference.objects.filter(item__split__dataset=world.dataset))
    weights_recompute_campaign(campaign_id=world.campaign.pk)
    published(
        world.dataset,
        world.campaign,
        world.owner,
        version=f"1.{k + 1}.0",
        citation="",
        public_splits=["dev"],
        include_ratings=True,
    )


def _human_evaluation(world: World, k: int, rater: User) -> None:
    """Systems with outputs, a judgment set, an output campaign with a rating, a study."""
    names = (f"sys{k}a", f"sys{k}b")
    for name in names:
        outputs = [(item_id, f"{name} says {item_id}") for item_id in DEV_IDS]
        eval_system_set_outputs(dataset=world.dataset, name=name, split="dev", outputs=outputs)
    lines = [
        json.dumps({"judge": f"j{j}", "id": item, "system": name, "scores": {"fluency": 3 + j}})
        for name in names
        for item in DEV_IDS
        for j in range(2)
    ]
    bundle = bundle_parse(judgments=("j.jsonl", "\n".join(lines).encode()))
    judgments = judgments_import(
        dataset=world.dataset, owner=world.owner, name=f"human {k}", split="dev", bundle=bundle
    )
    world.judgment_set = world.judgment_set or judgments
    # One more metric of the first set at each step: its list and the admin's rows grow.
    scored = [(name, item) for name in world.judgment_set.report["systems"] for item in DEV_IDS]
    metric = "\n".join([f"id\tsystem\tm{k}"] + [f"{i}\t{s}\t0.{k}" for s, i in scored])
    external_metrics_import(
        judgment_set=world.judgment_set, user=world.owner, name="m.tsv", data=metric.encode()
    )
    header = f"judge\tid\tsystem\tscore{k}\n".encode()  # a header of its own: one more row
    column_mapping_remember(owner=world.owner, bundle=bundle_parse(judgments=("m.tsv", header)))
    # Every system so far: the campaign's pairs, and its results' rows, grow with the world.
    systems = list(EvalSystem.objects.filter(dataset=world.dataset))
    outputs = campaign_create(
        owner=world.owner,
        dataset=world.dataset,
        name=f"outputs {k}",
        subject=Subject.OUTPUTS,
        systems=systems,
        split=world.dataset.splits.get(name="dev"),
        mode=Mode.PAIRWISE,
        control_rate=0,
    )
    campaign_join(campaign=outputs, rater=rater)
    while (lease := rating_next(campaign=outputs, rater=rater)) is not None:
        rating_submit(rating_id=lease.pk, rater=rater, score=2 + lease.pk % 3)
    campaign_join(campaign=outputs, rater=world.participant)
    rating_next(campaign=outputs, rater=world.participant)  # a lease held
    world.outputs = outputs
    study_create(
        owner=world.owner,
        name=f"study {k}",
        release=world.release,
        split="dev",
        judgment_set=judgments,
        options={"unit_size": 1, "assignments": 5, "metrics": ["bleu"]},
    )
    corpus_create(owner=world.owner, name=f"corpus {k}", fmt="jsonl", source="x.jsonl")


def _leaderboards(world: World, k: int, participant: User) -> None:
    leaderboard_create(
        owner=world.owner,
        release=world.release,
        split="dev",
        name=f"Board {k}",
        slug=f"board{k}",
    )
    team_create(user=world.participant, name=f"team {k}")
    hyps = ["the match was great", f"going to the beach {k}"]
    finished = []
    for user in (participant, world.participant):
        submission = upload(world.board, user, hyps, method=f"system {k}")
        execute(submission.run_id)
        finished.append(submission.pk)
    # One more metric uploaded to the board at each step: its links' rows grow.
    items = leaderboard_item_ids(leaderboard=world.board)
    metric = "\n".join(
        [f"id\tsystem\tb{k}"] + [f"{i}\t{s}\t0.{k}" for s in finished for i in items]
    )
    leaderboard_metrics_import(
        leaderboard=world.board, user=world.owner, name="b.tsv", data=metric.encode()
    )


def grow(world: World, k: int) -> None:
    """One more unit of everything (k: a number not used before)."""
    rater, participant = _people(world, k)
    _datasets(world, k, rater)
    _human_evaluation(world, k, rater)
    _leaderboards(world, k, participant)
    _workers(k)


def _workers(k: int) -> None:
    """A worker's heartbeat row, as the admin lists them."""
    from django.utils import timezone

    from core.runs.models import Worker

    now = timezone.now()
    Worker.objects.create(hostname=f"w{k}@host", queues=["celery"], started_at=now, beat_at=now)
