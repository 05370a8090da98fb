"""What rating_load.py checks in the database after a run: every reference got exactly the
ratings its slot wants, no rater rated a reference twice, every accepted answer is stored, no
lease is left over."""

from __future__ import annotations

# The check counts places exactly, so no quality-control verdict may take a rater's ratings off
# the count (a worker runs the checks in the embedded mode; simulated raters answer at random,
# which fails the bad-reference controls, and a verdict kept pending by asking for more
# controls would serve controls without end). So no controls, and no speed limit.
NO_VERDICT = {"control_rate": 0.0, "qc_min_seconds": 0, "qc_max_straightline": 1.0}


def count_check(campaign_id: int, accepted: set[int], raters: int) -> list[str]:
    """What is wrong in the database after the run (an empty list: nothing)."""
    from django.db.models import Count

    from annotate.rating.models import Rating, RatingKind, RatingStatus, Slot

    problems = []
    ratings = Rating.objects.filter(campaign_id=campaign_id)
    done = ratings.filter(status=RatingStatus.DONE)
    stored = set(done.values_list("pk", flat=True))
    if stored != accepted:
        missing, unexpected = len(accepted - stored), len(stored - accepted)
        problems.append(f"{missing} accepted answers missing, {unexpected} unexpected")
    normal = done.filter(kind=RatingKind.NORMAL)
    per_reference = dict(normal.values_list("slot__reference_id").annotate(n=Count("pk")))
    for slot in Slot.objects.filter(campaign_id=campaign_id):
        n = per_reference.get(slot.reference_id, 0)
        # Fewer raters than wanted ratings: each rater rates the reference once, no more.
        if n != min(slot.wanted, raters) or slot.active != n:
            problems.append(
                f"reference {slot.reference_id}: {n} ratings, wants {slot.wanted}, "
                f"slot says {slot.active}"
            )
    pairs = normal.values("slot__reference_id", "rater_id").annotate(n=Count("pk"))
    twice = pairs.filter(n__gt=1).count()
    if twice:
        problems.append(f"{twice} (reference, rater) pairs rated twice")
    leased = ratings.filter(status=RatingStatus.LEASED).count()
    if leased:
        problems.append(f"{leased} leases left over")
    return problems
