"""Scoring rows a test module's tests share: finished submissions, scored in this process, and
the world of boards, submissions and studies built once for a module."""

from __future__ import annotations

import pytest

from scoring.leaderboards.services import references as references_service
from tests.runs_kit import execute_scoring, upload


def scored_now(board, user, hyps, **fields):
    """A finished submission with its scores: uploaded, then scored in this process (its
    dispatch to a worker, an on-commit callback, is left to the caller's transaction)."""
    return scoring_finished(upload(board, user, hyps, **fields))


def scoring_finished(submission):
    """The submission scored in this process, as a worker would (its scoring run, then the run
    of its replicates that scoring queued), and read again: finished."""
    execute_scoring(submission)
    submission.refresh_from_db()
    assert submission.status == "finished", submission.error
    return submission


def shared_scoring_world(build, *names):
    """The fixtures of a test module whose tests share one world of scoring rows (leaderboards,
    scored submissions, studies), to bind to module names (``shared, world, board =
    shared_scoring_world(build, "board")``; the second must be called `world` when there are
    `names`, whose fixtures ask for it by that name):

    - `shared`, module-scoped: what `build(owner)` returns (a dict of rows, or lists of rows, by
      name) and the world's media folder, built once for the module in its own transaction
      (see `module_world`);
    - `world`: the same rows read again for the test that asks (it may change its own copies),
      the world's files copied into the test's own storage folder first;
    - one fixture for each of `names`: that row (or list of rows) of the world.

    The rows stay for the module's later tests (one transaction holds them until its end):
    those that make boards of their own name them apart.
    """
    from django.test import override_settings

    from annotate.accounts.models import Role
    from tests.annotate.release_kit import media_copy, module_world
    from tests.conftest import user_of

    @pytest.fixture(scope="module", name="shared")
    def built(django_db_setup, django_db_blocker, tmp_path_factory):
        media = tmp_path_factory.mktemp("scoring-world")
        with module_world(django_db_blocker, media), override_settings(VAR_DIR=media / "var"):
            rows = build(user_of("owner", Role.RESEARCHER))
            references_service._INDEX_CACHE.clear()
            yield rows, media

    @pytest.fixture
    def world(shared, settings, tmp_path):
        rows, media = shared
        media_copy(settings, tmp_path, media)
        return {name: _read_again(value) for name, value in rows.items()}

    return (built, world, *(_row_of(name) for name in names))


def _row_of(name: str):
    @pytest.fixture(name=name)
    def row(world):
        return world[name]

    return row


def _read_again(value):
    if isinstance(value, list):
        return [_read_again(row) for row in value]
    return type(value).objects.get(pk=value.pk)
