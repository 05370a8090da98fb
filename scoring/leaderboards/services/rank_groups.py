"""The board's significance answers (every pair's test and the rank groups drawn from them),
worked out when a score lands or the entries change and stored on the leaderboard, so that the
board, the compare page and the API read them instead of running bootstraps inside a request."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser

from scoring.leaderboards.models import Leaderboard
from scoring.leaderboards.selectors.leaderboard_table import (
    compute_significance,
    rank_groups_state,
    ranked_entries,
)


def leaderboard_rank_groups_store(*, leaderboard_id: int) -> list[dict[str, list]]:
    """Store the groups of the board as its owner sees it (every entry) and as the public does
    (public entries); a team member's view with private entries is computed when asked."""
    # The row lock orders two scores landing at once: the second waits, then sees the first.
    # NO KEY: new submissions (which reference the board) need not wait for the bootstraps.
    board = (
        Leaderboard.objects.select_for_update(no_key=True, of=("self",))
        .select_related("release", "owner")
        .get(pk=leaderboard_id)
    )
    stored: list[dict[str, list]] = []
    for viewer in (board.owner, AnonymousUser()):
        _, ranked = ranked_entries(leaderboard=board, user=viewer)
        state = rank_groups_state(ranked)
        if ranked and all(entry["ranked"] != state for entry in stored):
            stored.append({"ranked": state, **compute_significance(board, ranked).as_stored()})
    board.rank_groups = stored
    board.save(update_fields=["rank_groups"])
    return stored
