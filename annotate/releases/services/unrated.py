"""References a release's campaign has not rated (no counted rating, hence no weight).

They are new candidates the campaign has not reached, or references outside its split. A release
never publishes them silently: freezing (or publishing an older draft) is refused until the owner
chooses — wait (do nothing: rate them, then freeze again), exclude them from the snapshot, or
publish them with weight 0 — and the choice with its count goes into `build_info["unrated"]`,
which the datasheet states.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError

from annotate.releases.models import Release, ReleaseReference
from annotate.releases.selectors.confirmations import release_unweighted_count


class Unrated:
    EXCLUDE = "exclude"
    ZERO = "zero"
    CHOICES = [
        (EXCLUDE, "Exclude them from the release"),
        (ZERO, "Publish them with weight 0"),
    ]


UNRATED_VALUES = [value for value, _ in Unrated.CHOICES]


def _unrated(release: Release):
    return ReleaseReference.objects.filter(release=release, weight__isnull=True)


def release_unrated_resolve(*, release: Release, choice: str) -> int:
    """Apply the owner's choice to the draft's unweighted references, or refuse while there
    are some and no choice; returns how many there were (0: nothing to choose)."""
    count = release_unweighted_count(release=release)
    recorded = release.build_info.get("unrated")
    if count == 0:
        if recorded is None:
            release.build_info["unrated"] = {"choice": "none", "references": 0}
        return 0
    if choice not in UNRATED_VALUES:
        raise ValidationError(
            {
                "unrated": f"{count} reference{'s' if count != 1 else ''} of this dataset "
                "have no rating in the chosen campaign. Wait until they are rated, or choose "
                "to exclude them (unrated=exclude) or to publish them with weight 0 "
                "(unrated=zero)."
            }
        )
    if choice == Unrated.EXCLUDE:
        _unrated(release).delete()
    else:
        _unrated(release).update(weight=0.0, z_weight=0.0)
    previous = recorded["references"] if recorded and recorded.get("choice") == choice else 0
    release.build_info["unrated"] = {"choice": choice, "references": previous + count}
    return count
