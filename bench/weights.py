"""Time the campaign weights recompute (the `campaign_weights` task) on a synthetic campaign.

A campaign of 1,000 items × 3 references (3,000 references) rated 3 times each by 30 raters
(9,000 counted ratings, scores 1–5). Three timings, each printing seconds and queries:

* ``first``: the first recompute of the campaign (every reference is new to it);
* ``idle``: a recompute with no rating since the last one;
* ``window``: a recompute after 10 more ratings on 10 references — what the task sees every
  3 seconds while raters work (each rating already updated its own raw weight, as
  `rating_submit` does);
* ``full``: ``full=True``, every reference's raw weight recomputed and written (as after
  the migration that added `scores_seen`). The code before that migration had no `full`.

Runs on a throwaway SQLite database in a temporary VAR_DIR, or on PostgreSQL with
``--database-url postgres://…/name`` (the database is flushed first: use a scratch one).

Usage: ``python bench/weights.py [--items 1000] [--database-url URL]``

Measured on a shared 2-core machine (seconds / queries), full recompute before, incremental
after: SQLite window 2.67 s / 12,004 → 0.14 s / 13, idle 2.76 s / 12,004 → 0.05 s / 4, first
2.76 s / 18,004 → 0.78 s / 38; PostgreSQL window 5.82 s / 12,003 → 0.14 s / 9, idle
4.67 s / 12,003 → 0.04 s / 3, first 4.97 s / 18,003 → 0.61 s / 9.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

RATERS = 30
RATINGS_PER_REFERENCE = 3
WINDOW_RATINGS = 10


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=1000, help="items, 3 references each")
    parser.add_argument("--database-url", default="", help="PostgreSQL; default: temp SQLite")
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args()


def setup_django(database_url: str) -> None:
    os.environ.setdefault("VAR_DIR", tempfile.mkdtemp(prefix="bench-weights-"))
    os.environ.setdefault("DEBUG", "True")
    if database_url:
        os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "deltableu.settings")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    if database_url:
        call_command("flush", interactive=False, verbosity=0)


def build_campaign(n_items: int, rng: random.Random):
    from django.contrib.auth.models import User
    from django.utils import timezone

    from annotate.datasets.models import Dataset, Item, Reference, Split
    from annotate.rating.models import Campaign, Rating, Slot

    owner = User.objects.create(username="bench-owner")
    raters = User.objects.bulk_create(User(username=f"bench-rater{k}") for k in range(RATERS))
    dataset = Dataset.objects.create(owner=owner, name="Bench", slug="bench")
    split = Split.objects.create(dataset=dataset, name="dev")
    items = Item.objects.bulk_create(
        Item(split=split, external_id=f"i{k}", message=f"message {k}", position=k)
        for k in range(n_items)
    )
    references = Reference.objects.bulk_create(
        Reference(item=item, text=f"reference {item.position}.{p}", position=p)
        for item in items
        for p in range(3)
    )
    campaign = Campaign.objects.create(owner=owner, dataset=dataset, name="Bench")
    slots = Slot.objects.bulk_create(
        Slot(
            campaign=campaign,
            item_id=reference.item_id,
            reference=reference,
            wanted=RATINGS_PER_REFERENCE,
        )
        for reference in references
    )
    start = timezone.now() - timedelta(days=1)
    ratings = []
    for slot in slots:
        for rater in rng.sample(raters, RATINGS_PER_REFERENCE):
            at = start + timedelta(seconds=len(ratings))
            rating = Rating(campaign=campaign, slot=slot, rater=rater, status="done")
            rating.score, rating.started_at, rating.finished_at = rng.randint(1, 5), at, at
            ratings.append(rating)
    Rating.objects.bulk_create(ratings, batch_size=2000)
    return campaign, references, raters


def add_ratings(campaign, references, raters, rng: random.Random) -> None:
    """A few new ratings, each with its reference's raw weight updated as `rating_submit` does."""
    from django.utils import timezone

    from annotate.rating.models import Rating, Slot
    from annotate.rating.services.weights import weight_recompute

    rated = set(
        Rating.objects.filter(campaign=campaign).values_list("slot__reference_id", "rater_id")
    )
    for reference in rng.sample(references, WINDOW_RATINGS):
        rater = next(r for r in raters if (reference.pk, r.pk) not in rated)
        now = timezone.now()
        Rating.objects.create(
            campaign=campaign,
            slot=Slot.objects.get(campaign=campaign, reference=reference),
            rater=rater,
            status="done",
            score=rng.randint(1, 5),
            started_at=now,
            finished_at=now,
        )
        weight_recompute(campaign=campaign, reference_id=reference.pk)


def measure(label: str, campaign_id: int, **options: bool) -> None:
    from django.db import connection

    from annotate.rating.services.weights import weights_recompute_campaign

    queries = 0

    def count(execute, sql, params, many, context):
        nonlocal queries
        queries += 1
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        start = time.perf_counter()
        weights_recompute_campaign(campaign_id=campaign_id, **options)
        seconds = time.perf_counter() - start
    print(f"{label:<8} {seconds:8.3f} s  {queries:6d} queries")


def main() -> None:
    args = parse_args()
    setup_django(args.database_url)
    from django.db import connection

    rng = random.Random(args.seed)
    campaign, references, raters = build_campaign(args.items, rng)
    print(f"{connection.vendor}: {len(references)} references, {RATERS} raters")
    measure("first", campaign.pk)
    measure("idle", campaign.pk)
    add_ratings(campaign, references, raters, rng)
    measure("window", campaign.pk)
    measure("full", campaign.pk, full=True)


if __name__ == "__main__":
    main()
