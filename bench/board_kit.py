"""A published leaderboard of any size, built fast (rows written as a freeze writes them), for
the benchmarks that score a large submission: scoring_e2e.py, and rating_load.py's embedded
mode (a worker busy scoring while raters work)."""

from __future__ import annotations

import random

from django.utils import timezone

WORDS = [f"w{n}" for n in range(3000)]


def sentence(rng: random.Random) -> str:
    return " ".join(
        rng.choice(WORDS[: rng.choice((200, 3000))]) for _ in range(rng.randint(10, 20))
    )


def published_board(
    n_items: int, n_refs: int, tag: str, companions: list[str] | None, *, password: str
):
    """A published release of `n_items` dev items × `n_refs` weighted references, its open
    leaderboard (its indexes built by a worker, as a board's are when it opens), a participant
    and `n_items` output lines: (board, participant, lines)."""
    from annotate.accounts.services import user_create
    from annotate.datasets.models import Visibility
    from annotate.datasets.services.datasets import dataset_create
    from annotate.releases.models import Release, ReleaseItem, ReleaseReference
    from core.bulk import analyze_after_commit
    from scoring.leaderboards.services.leaderboards import leaderboard_create

    rng = random.Random(n_items)
    owner = user_create(username=f"owner-{tag}", password=password, role="researcher")
    dataset = dataset_create(owner=owner, name=tag, slug=tag, visibility=Visibility.PUBLIC)
    release = Release.objects.create(dataset=dataset, version="1.0.0", created_by=owner)
    items = ReleaseItem.objects.bulk_create(
        (
            ReleaseItem(release=release, split="dev", external_id=f"i{n}", message="m", position=n)
            for n in range(n_items)
        ),
        batch_size=5000,
    )
    batch: list[ReleaseReference] = []
    for item in items:
        for k in range(n_refs):
            # Three ratings on 1-5, the weight their mean's (the first reference rated well), so
            # that every weighted score gets its interval with the raters' uncertainty.
            ratings = [5, 5, 4] if k == 0 else [rng.randint(1, 5) for _ in range(3)]
            weight = 2.0 * (sum(ratings) / 3 - 1) / 4 - 1.0
            batch.append(
                ReleaseReference(
                    release=release,
                    item=item,
                    position=k,
                    text=sentence(rng),
                    weight=weight,
                    n=3,
                    rating_values=[float(r) for r in ratings],
                )
            )
        if len(batch) >= 20_000:
            ReleaseReference.objects.bulk_create(batch)
            batch = []
    ReleaseReference.objects.bulk_create(batch)
    # The rows are written as a freeze would write them, so the planner's statistics are
    # refreshed as a freeze refreshes them (outside a transaction: at once).
    analyze_after_commit(ReleaseItem, ReleaseReference, rows=n_items * n_refs)
    Release.objects.filter(pk=release.pk).update(status="published", published_at=timezone.now())
    release.refresh_from_db()
    user = user_create(username=f"team-{tag}", password=password, role="researcher")
    board = leaderboard_create(
        owner=owner, release=release, split="dev", name=tag, slug=tag, companion_metrics=companions
    )
    hyps = [sentence(rng) for _ in range(n_items)]
    return board, user, hyps
