"""The board's significance answers (every pair's test and the rank groups drawn from them),
worked out when a score lands or the entries change and stored on the leaderboard, so that the
board, the compare page and the API read them instead of running bootstraps inside a request."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.db import transaction

from scoring.leaderboards.models import Leaderboard
from scoring.leaderboards.selectors.leaderboard_table import (
    Ranked,
    compute_significance,
    rank_groups_state,
    ranked_entries,
)

# Scores landing while the groups are worked out change the entries, and the groups are worked
# out again; past this many tries, under the board's lock (as they always were before).
STORE_TRIES = 3

View = tuple[list[list[int]], list[Ranked]]  # (what the groups depend on, the ranked entries)


def leaderboard_rank_groups_store(*, leaderboard_id: int) -> list[dict[str, list]]:
    """Store the groups of the board as its owner sees it (every entry) and as the public does
    (public entries); a team member's view with private entries is computed when asked.

    The bootstraps over every entry's statistics take seconds on a large board, so they run
    outside the transaction that stores them (on SQLite a transaction holds the one write lock
    from its start, and every rater's answer would wait): the short transaction stores them only
    if the entries are still the ones they were worked out for, and otherwise they are worked
    out again. Called inside a caller's transaction, they are worked out in it."""
    for _ in range(STORE_TRIES):
        board = _board(leaderboard_id, locked=False)
        views = _views(board)
        stored = _groups(board, views)
        with transaction.atomic():
            board = _board(leaderboard_id, locked=True)
            if [state for state, _ in _views(board)] == [state for state, _ in views]:
                return _saved(board, stored)
    with transaction.atomic():
        board = _board(leaderboard_id, locked=True)
        return _saved(board, _groups(board, _views(board)))


def _board(leaderboard_id: int, *, locked: bool) -> Leaderboard:
    boards = Leaderboard.objects.select_related("release", "owner")
    if locked:
        # The row lock orders two scores landing at once: the second waits, then sees the
        # first. NO KEY: new submissions (which reference the board) need not wait.
        boards = boards.select_for_update(no_key=True, of=("self",))
    return boards.get(pk=leaderboard_id)


def _views(board: Leaderboard) -> list[View]:
    views = []
    for viewer in (board.owner, AnonymousUser()):
        _, ranked = ranked_entries(leaderboard=board, user=viewer)
        views.append((rank_groups_state(ranked), ranked))
    return views


def _groups(board: Leaderboard, views: list[View]) -> list[dict[str, list]]:
    stored: list[dict[str, list]] = []
    for state, ranked in views:
        if ranked and all(entry["ranked"] != state for entry in stored):
            stored.append({"ranked": state, **compute_significance(board, ranked).as_stored()})
    return stored


def _saved(board: Leaderboard, stored: list[dict[str, list]]) -> list[dict[str, list]]:
    board.rank_groups = stored
    board.save(update_fields=["rank_groups"])
    return stored
