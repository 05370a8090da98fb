"""The world the route walker walks: canaries planted where only their owner may look.

* a public dataset whose test split is hidden, with a canary in a hidden test reference, rated by
  a campaign the rater never joined, frozen into a release that keeps the test split hidden, and
  leaderboards on its dev and test splits;
* a private dataset with canaries in an item, its references, its release, a leaderboard on it,
  a mining run, imported human judgments, an output campaign and a correlation study;
* a private submission (canary in its method and its outputs) by a team none of the walkers is in,
  and a team (canary in its name) none of them is in.

Nothing here is seen by the walkers, except public data that carries no canary.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from annotate.accounts.models import Role
from annotate.accounts.services import user_create
from annotate.datasets.models import Reference, Visibility
from annotate.datasets.services.datasets import dataset_create, dataset_import_file
from annotate.judgments.models import EvalSystem
from annotate.judgments.services.importing import bundle_parse, judgments_import
from annotate.judgments.services.systems import eval_system_set_outputs
from annotate.mining.services.corpora import corpus_create
from annotate.rating.models import Rating, Subject
from annotate.rating.services.campaigns import campaign_create, campaign_join
from annotate.releases.services import release_freeze
from core.runs.engine import run_create
from scoring.leaderboards.selectors.leaderboards import leaderboard_item_ids
from scoring.leaderboards.services.external_metrics import leaderboard_metrics_import
from scoring.leaderboards.services.leaderboards import leaderboard_create
from scoring.leaderboards.services.teams import team_create, team_invitation_renew
from scoring.study.services import study_create
from tests.annotate.release_kit import published, settle
from tests.runs_kit import execute, upload

PASSWORD = "a-long-test-password-42"
HIDDEN_CANARY = "zqxhiddencanary"
PRIVATE_CANARY = "zqxprivatecanary"
SUBMISSION_CANARY = "zqxsubmissioncanary"
CANARIES = (HIDDEN_CANARY, PRIVATE_CANARY, SUBMISSION_CANARY)


def _line(item_id, split, message, refs, context=("hello there",)):
    references = [{"text": text, "origin": "original", "provenance": {}} for text in refs]
    return json.dumps(
        {
            "id": item_id,
            "split": split,
            "context": list(context),
            "message": message,
            "references": references,
        }
    )


PUBLIC_LINES = [
    _line("p1", "dev", "how was the match?", ["the match was great", "not good"]),
    _line("p2", "dev", "any plans today?", ["going to the beach", "no plans"]),
    _line("p3", "test", "what is the answer?", [f"the {HIDDEN_CANARY} answer", "no answer"]),
    _line("p4", "test", "where is it?", [f"over there {HIDDEN_CANARY}", "somewhere"]),
]
PRIVATE_LINES = [
    _line("q1", "dev", f"a {PRIVATE_CANARY} message", [f"a {PRIVATE_CANARY} reply", "okay"]),
    _line("q2", "dev", "second private item", [f"{PRIVATE_CANARY} again", "fine"]),
    _line("q3", "test", "third private item", [f"{PRIVATE_CANARY} test", "sure"]),
]
# Weights by reference position within each item: the first reference is good.
WEIGHTS = (0.8, -0.4)


@dataclass
class World:
    owner: object
    personas: dict  # name → user or None (anonymous)
    objects: dict = field(default_factory=dict)  # parameter kind → {"private": v, ...}
    join_token: str = ""  # the link of the campaign the rater joined


def _dataset(owner, slug, visibility, lines):
    dataset = dataset_create(owner=owner, name=slug.title(), slug=slug, visibility=visibility)
    data = ("\n".join(lines) + "\n").encode()
    dataset_import_file(dataset=dataset, lines=data.splitlines(keepends=True), fmt="jsonl")
    return dataset


def _rate_everything(dataset, campaign, raters):
    """Weights and two done ratings on every reference of the dataset (as a campaign would)."""
    for reference in Reference.objects.filter(item__split__dataset=dataset):
        settle(campaign, reference, raters, weight=WEIGHTS[reference.position % 2])


def _published(dataset, campaign, owner):
    citation = "@misc{x, title={X}, year={2026}}"
    return published(dataset, campaign, owner, citation=citation, public_splits=["dev"])


def _submit(board, user, hyps, **fields):
    submission = upload(board, user, hyps, **fields)
    execute(submission.run_id)
    submission.refresh_from_db()
    return submission


def _users():
    def make(name, role, **extra):
        return user_create(username=name, password=PASSWORD, role=role, **extra)

    owner = make("owner", Role.RESEARCHER)
    personas = {
        "anonymous": None,
        "participant": make("participant", Role.RESEARCHER),
        "rater": make("rater", Role.RATER),
        "researcher": make("researcher", Role.RESEARCHER),
    }
    return owner, personas


def build_world() -> World:
    owner, personas = _users()
    crowd = [user_create(username=f"crowd{k}", password=PASSWORD, role=Role.RATER) for k in (1, 2)]
    stranger = user_create(username="stranger", password=PASSWORD, role=Role.RESEARCHER)

    public = _dataset(owner, "pub", Visibility.PUBLIC, PUBLIC_LINES)
    private = _dataset(owner, "priv", Visibility.PRIVATE, PRIVATE_LINES)
    # The rater persona joined a public campaign on the dev split only.
    dev_campaign = campaign_create(
        owner=owner,
        dataset=public,
        name="dev round",
        control_rate=0.0,
        split=public.splits.get(name="dev"),
    )
    campaign_join(campaign=dev_campaign, rater=personas["rater"])
    public_campaign = campaign_create(owner=owner, dataset=public, name="all", control_rate=0.0)
    private_campaign = campaign_create(owner=owner, dataset=private, name="p", control_rate=0.0)
    _rate_everything(public, public_campaign, crowd)
    _rate_everything(private, private_campaign, crowd)
    public_release = _published(public, public_campaign, owner)
    private_release = _published(private, private_campaign, owner)

    dev_board = leaderboard_create(
        owner=owner, release=public_release, split="dev", name="Dev", slug="pub-dev"
    )
    test_board = leaderboard_create(
        owner=owner, release=public_release, split="test", name="Test", slug="pub-test"
    )
    # A leaderboard the owner keeps private, on the public release, and a draft release.
    leaderboard_create(
        owner=owner,
        release=public_release,
        split="dev",
        name="Quiet",
        slug="pub-quiet",
        is_public=False,
    )
    release_freeze(
        dataset=public,
        campaign=public_campaign,
        created_by=owner,
        version="2.0.0",
        citation="",
        public_splits=["dev", "test"],
    )
    private_board = leaderboard_create(
        owner=owner, release=private_release, split="dev", name="Priv", slug="priv-dev"
    )
    participant = personas["participant"]
    _submit(dev_board, participant, ["the match was great", "going to the beach"])
    mine = _submit(test_board, participant, ["an answer", "over there"], method="mine")
    # A metric the owner uploaded to the hidden test board, scoring its items.
    items = leaderboard_item_ids(leaderboard=test_board)
    scores = "\n".join(["item\tsystem\tquality", *(f"{i}\t{mine.pk}\t0.5" for i in items)])
    (board_metric,) = leaderboard_metrics_import(
        leaderboard=test_board, user=owner, name="m.tsv", data=scores.encode()
    )
    secret = _submit(
        test_board,
        stranger,
        [f"the {SUBMISSION_CANARY} answer", SUBMISSION_CANARY],
        method=f"method {SUBMISSION_CANARY}",
        is_public=False,
    )
    private_submission = _submit(private_board, owner, ["a reply", "again"])
    # A team none of the walkers is in, its name a canary, with an invitation link out.
    secret_team = team_create(user=stranger, name=f"team {SUBMISSION_CANARY}")
    team_invitation_renew(team=secret_team, user=stranger)

    # A queued mining run of the private dataset; its message names a private corpus.
    mining = run_create(
        kind="mining",
        owner=owner,
        scope=f"dataset:{private.pk}",
        params={"dataset_id": private.pk, "corpus": f"corpus {PRIVATE_CANARY}", "split": "dev"},
        message=f"Waiting to mine from corpus {PRIVATE_CANARY}",
    )
    hidden_reference = Reference.objects.get(text=f"the {HIDDEN_CANARY} answer")
    private_rating = Rating.objects.filter(campaign=private_campaign).first()
    hidden_rating = Rating.objects.filter(
        campaign=public_campaign, slot__reference=hidden_reference
    )
    world = World(owner=owner, personas=personas, join_token=dev_campaign.token)
    world.objects = {
        "dataset": {"public": "pub", "private": "priv"},
        "leaderboard": {
            "public": "pub-dev",
            "hidden-test": "pub-test",
            "private": "priv-dev",
            "private-board": "pub-quiet",
        },
        "version": {"public": "1.0.0", "draft": "2.0.0"},
        # The dev round is the rater's own: its rater pages answer them (and no one else).
        "campaign": {
            "private": private_campaign.pk,
            "hidden": public_campaign.pk,
            "public-joined": dev_campaign.pk,
        },
        "rating": {"private": private_rating.pk, "hidden": hidden_rating.first().pk},
        "submission": {"private": secret.pk, "private-dataset": private_submission.pk},
        "team": {"private": secret_team.pk},
        "run": {"private": mining.pk},
        "reference": {"hidden-test": hidden_reference.pk},
        "release": {"public": public_release, "private": private_release},
        "external_metric": {"hidden-test": board_metric.pk},
    }
    human = _human_evaluation(owner, private, private_release)
    world.objects["campaign"]["private-outputs"] = human.pop("output_campaign")
    world.objects.update(human)
    return world


def _human_evaluation(owner, dataset, release):
    """Systems, judgments, an output campaign and a study on the private dataset."""
    for name, words in (("good", "a reply"), ("bad", f"{PRIVATE_CANARY} output")):
        eval_system_set_outputs(
            dataset=dataset, name=name, split="dev", outputs=[("q1", words), ("q2", words)]
        )
    lines = [
        json.dumps({"judge": f"j{k}", "id": item, "system": name, "scores": {"relevance": 3 + k}})
        for name in ("good", "bad")
        for item in ("q1", "q2")
        for k in range(2)
    ]
    bundle = bundle_parse(judgments=("j.jsonl", "\n".join(lines).encode()))
    judgments = judgments_import(
        dataset=dataset, owner=owner, name="human", split="dev", bundle=bundle
    )
    systems = list(EvalSystem.objects.filter(dataset=dataset))
    output_campaign = campaign_create(
        owner=owner,
        dataset=dataset,
        name="outputs",
        subject=Subject.OUTPUTS,
        systems=systems,
        split=dataset.splits.get(name="dev"),
    )
    study = study_create(
        owner=owner,
        name="study",
        release=release,
        split="dev",
        judgment_set=judgments,
        options={"unit_size": 1, "assignments": 5, "metrics": ["bleu"]},
    )
    corpus = corpus_create(
        owner=owner, name=f"corpus {PRIVATE_CANARY}", fmt="jsonl", source="x.jsonl", shared=False
    )
    return {
        "corpus": {"private": corpus.pk},
        "judgment_set": {"private": judgments.pk},
        "output_campaign": output_campaign.pk,
        "study": {"private": study.pk},
    }
