"""Shared fixtures: an owner, a teammate-less outsider, a rater and staff, and their clients."""

from __future__ import annotations

import gc
import warnings
from pathlib import Path

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from annotate.accounts.models import Role
from annotate.accounts.services import user_create
from annotate.datasets.models import Visibility
from annotate.datasets.services.datasets import dataset_create, dataset_import_file
from annotate.releases.triggers import (
    drop_frozen_triggers,
    install_frozen_triggers,
    missing_frozen_triggers,
)
from core.throttling import AtomicWindowMixin

# Fixtures of one area, kept beside its tests rather than in this file.
pytest_plugins = ["tests.mining_fixtures", "tests.workers"]

PASSWORD = "a-long-test-password-42"
DATA = Path(__file__).resolve().parent / "data"


def pytest_collection_finish(session):
    # What is imported and collected by now lives for the whole run: frozen, it is no longer
    # walked by every full collection of the cyclic garbage collector, which also runs less
    # often (tests/environment.py raised its threshold: each test makes and drops thousands of
    # ORM objects). The collector took ~8% of a run's time before.
    gc.collect()
    gc.freeze()


def pytest_unconfigure(config):
    # The process is about to end: freezing what is left spares the collector's last full pass
    # at interpreter shutdown over everything the tests made (0.2-0.5 s a process, which the
    # controller of `make test-fast` waits for twice: its workers', then its own). The
    # operating system reclaims the memory either way.
    gc.freeze()


# How long the test database waits at the end for other processes' and threads' connections
# (a worker stopping, a request thread closing) before they are ended so it can be dropped.
OTHER_SESSIONS_SECONDS = 10


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's, and at the end no other session on a PostgreSQL test database, which
    it refuses to drop while one is connected: stragglers get time to close, then are ended
    with a warning that names them."""
    yield
    from django.db import connection

    from tests.workers import wait_for  # a plugin of this file's: imported once pytest rewrote it

    if connection.vendor != "postgresql":
        return
    gc.collect()  # a finished thread's connection in a reference cycle closes when collected
    with django_db_blocker.unblock():
        try:
            wait_for(lambda: not other_sessions(connection), OTHER_SESSIONS_SECONDS)
        except AssertionError:
            others = other_sessions(connection)
            warnings.warn(f"ended sessions left on the test database: {others}", stacklevel=1)
            with connection.cursor() as cursor:
                for pid, *_ in others:
                    cursor.execute("SELECT pg_terminate_backend(%s)", [pid])


def other_sessions(connection) -> list[tuple]:
    """(pid, application name, client port, state, last query) of the other sessions on the
    connection's database."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid, application_name, client_port, state, left(query, 80)"
            " FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return cursor.fetchall()


@pytest.fixture(autouse=True)
def _sqlite_release_triggers_let_flush_work(request):
    # Published releases are guarded by triggers that abort DELETE; SQLite's flush (how
    # transactional tests clean up) deletes rows, PostgreSQL's truncates. So on SQLite a
    # transactional test drops the triggers just before the flush, and every test that uses
    # the database gets them back first.
    from django.db import connection

    from tests.workers import uses_db as uses_db_of  # a plugin of this file's (see above)

    uses_db, transactional = uses_db_of(request)
    if not uses_db or connection.vendor != "sqlite":
        yield
        return
    request.getfixturevalue("transactional_db" if transactional else "db")
    if missing_frozen_triggers(connection):
        install_frozen_triggers(connection)
    yield
    if transactional:
        drop_frozen_triggers(connection)


@pytest.fixture(autouse=True, scope="session")
def _fast_password_hashing():
    # Real hashing costs ~0.3 s a user; tests make hundreds of users, and so do the worlds
    # that a module's tests share (built before any test's own fixtures).
    from django.test import override_settings

    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture(autouse=True)
def _fresh_throttle_counts(monkeypatch):
    # Throttle counters live in the cache; one test's requests must not throttle the next.
    cache.clear()
    # They count per fixed window: a test that straddled a window's end would count twice (CI
    # once saw four of six requests pass a 3/minute limit). Time stands still mid-window.
    monkeypatch.setattr(AtomicWindowMixin, "timer", lambda self: 1_800_000_030.0)


def user_of(username: str, role: str, **fields):
    """The test user of that name: made once, also when a module's shared world made it first."""
    from django.contrib.auth.models import User

    found = User.objects.filter(username=username).first()
    return found or user_create(username=username, password=PASSWORD, role=role, **fields)


@pytest.fixture
def owner(db):
    return user_of("owner", Role.RESEARCHER)


@pytest.fixture
def other(db):
    return user_of("other", Role.RESEARCHER)


@pytest.fixture
def rater(db):
    return user_of("rater", Role.RATER)


@pytest.fixture
def staff(db):
    return user_of("staff", Role.RESEARCHER, is_staff=True)


@pytest.fixture
def user_named(request):
    """`user_named(who)`: the user that the fixture named `who` gives ("owner", "staff", …), None
    for "anonymous"; for tests parametrized by who asks."""

    def named(who: str):
        return None if who == "anonymous" else request.getfixturevalue(who)

    return named


def log_in(client, user) -> None:
    """Give `client` a session of `user`, as `force_login` does, without the login signal.

    The signal's receivers (axes' access log and its clean-ups, `last_login`) and the session's
    key cycling cost ~19 queries a login, and the suite logs in a thousand times; what they do
    is tested where it matters, through the login form.
    """
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.base import VALID_KEY_CHARS
    from django.utils.crypto import get_random_string

    data = {
        SESSION_KEY: user._meta.pk.value_to_string(user),
        BACKEND_SESSION_KEY: client._get_backend(),  # the one force_login would name
        HASH_SESSION_KEY: user.get_session_auth_hash(),
    }
    # A random key as the store draws one, and its row in one INSERT: the store's own `save`
    # first asks whether the key is taken and wraps the insert in a savepoint (four queries).
    key = get_random_string(32, VALID_KEY_CHARS)
    session = import_module(settings.SESSION_ENGINE).SessionStore(session_key=key)
    session.create_model_instance(data).save(force_insert=True)
    client.cookies[settings.SESSION_COOKIE_NAME] = key


def _client_for(user):
    client = APIClient()
    if user is not None:
        log_in(client, user)
    return client


@pytest.fixture
def client_for():
    """`client_for(user)` gives a logged-in client; `client_for(None)` an anonymous one."""
    return _client_for


def dataset_of(owner, *, slug="chat", visibility=Visibility.PRIVATE, data="small.jsonl"):
    """A dataset of `owner`, its items imported from tests/data (none with `data=None`)."""
    dataset = dataset_create(owner=owner, name=slug.title(), slug=slug, visibility=visibility)
    if data:
        with (DATA / data).open("rb") as lines:
            dataset_import_file(dataset=dataset, lines=lines, fmt="jsonl")
    return dataset


@pytest.fixture
def make_dataset(owner):
    def make(*, user=None, **fields):
        return dataset_of(user or owner, **fields)

    return make


def owner_only_access(anonymous: int) -> list[tuple[str, str, int]]:
    """(who, visibility, status) of a request for what only a dataset's owner and staff may
    use: a private dataset is hidden from the others (404), a public one refused (403); an
    anonymous request gets `anonymous` whatever the visibility (a page's redirect to the login,
    the API's 403)."""
    return [
        ("owner", "private", 200),
        ("staff", "private", 200),
        ("other", "private", 404),
        ("rater", "private", 404),
        ("anonymous", "private", anonymous),
        ("other", "public", 403),
        ("rater", "public", 403),
        ("anonymous", "public", anonymous),
    ]


@pytest.fixture
def make_campaign(owner, make_dataset):
    from annotate.rating.services.campaigns import campaign_create

    def make(*, dataset=None, **fields):
        fields.setdefault("name", "First round")
        fields.setdefault("control_rate", 0.0)
        return campaign_create(owner=owner, dataset=dataset or make_dataset(), **fields)

    return make


@pytest.fixture
def make_rater(db):
    from itertools import count

    numbers = count(1)

    def make(campaign=None):
        user = user_create(username=f"rater{next(numbers)}", password=PASSWORD, role=Role.RATER)
        if campaign is not None:
            from annotate.rating.services.campaigns import campaign_join

            campaign_join(campaign=campaign, rater=user)
        return user

    return make


# The campaign page's settings as an owner who keeps the usual ones posts them.
CAMPAIGN_FORM_SETTINGS = {
    "ratings_per_unit": 3,
    "control_rate": 0.1,
    "lease_minutes": 10,
    "ratings_per_rater": 20,
    "extra_ratings_on_disagreement": 2,
    "disagreement_sd": 1.25,
    "qc_min_seconds": 2,
    "qc_max_straightline": 0.8,
    "qc_alpha": 0.1,
    "qc_min_controls": 3,
    "qc_max_repeat_difference": 1,
}


def campaign_form(name: str, **changes: object) -> dict[str, object]:
    """What the campaign page posts for a campaign called `name`, with `changes`."""
    return {"name": name, **CAMPAIGN_FORM_SETTINGS, **changes}


DEFAULT_RELEASE_ITEMS = [
    ("dev", "d1", [("the cat sat on the mat", 1.0), ("a cat was on the mat", 0.5), ("no", -1.0)]),
    ("dev", "d2", [("it was a great match", 1.0), ("what a game", 0.4)]),
    ("dev", "d3", [("see you tomorrow then", 0.8), ("bye", -0.4), ("unrated", None)]),
    ("dev", "d4", [("only bad ones here", -0.5)]),  # no positive weight: not scored
    ("dev", "d5", [("i love pizza with cheese", 1.0), ("pizza is fine", 0.0)]),
    ("test", "t1", [("the hidden answer is here", 1.0), ("secret text", 0.2)]),
    ("test", "t2", [("another hidden reference", 0.9)]),
]


# The same references with the ratings behind their weights (mean m gives w = (m − 3) / 2).
RATED_RELEASE_ITEMS = [
    (split, item, [(text, weight, ratings) for (text, weight), ratings in zip(refs, pools)])
    for (split, item, refs), pools in zip(
        DEFAULT_RELEASE_ITEMS,
        [
            [[5, 5, 5], [3, 4, 5], [1, 1, 1]],
            [[5, 5, 5], [3, 4, 4, 4, 4]],
            [[4, 5, 5, 5, 4], [1, 2, 3, 2, 3], []],
            [[2, 2, 2]],
            [[5, 5, 5], [2, 3, 4]],
            [[5, 5, 5], [3, 3, 4, 3, 4]],
            [[5, 5, 5, 5, 4]],
        ],
        strict=True,
    )
]


# Filler candidates rated twice or thrice, all poorly (weights ≤ 0: no item's best reference
# changes, so scores stay those of RATED_RELEASE_ITEMS' references), six on each scored dev
# item: 24 references rated more than once, enough for the rater model (its MIN_REPEATED, 20).
FILLER_RATINGS = [[1, 2], [2, 3, 2], [3, 2], [1, 1, 2], [2, 2], [3, 3, 1]]
WELL_RATED_RELEASE_ITEMS = [
    (split, item, refs + [
        (f"filler{k} zz{k} of {item}", (sum(r) / len(r) - 3) / 2, r)
        for k, r in enumerate(FILLER_RATINGS)
    ] if split == "dev" and item != "d4" else refs)
    for split, item, refs in RATED_RELEASE_ITEMS
]  # fmt: skip


def release_of(
    owner,
    *,
    slug="chat",
    items=DEFAULT_RELEASE_ITEMS,
    public_splits=("dev",),
    version="1.0.0",
    weight_variant="raw",
    with_raters=False,
):
    """A published release of `owner`'s public dataset `slug`, built row by row (no campaign);
    `with_raters`: each reference's t-th rating is by rater t + 1."""
    from django.utils import timezone

    from annotate.releases.models import Release, ReleaseItem, ReleaseReference

    dataset = dataset_of(owner, slug=slug, visibility="public", data=None)
    release = Release.objects.create(
        dataset=dataset,
        version=version,
        created_by=owner,
        public_splits=list(public_splits),
        weight_variant=weight_variant,
    )
    release_items = ReleaseItem.objects.bulk_create(
        ReleaseItem(
            release=release,
            split=split,
            external_id=external_id,
            context=["earlier turn"],
            message=f"message {external_id}",
            position=position,
        )
        for position, (split, external_id, _) in enumerate(items)
    )
    ReleaseReference.objects.bulk_create(
        ReleaseReference(
            release=release,
            item=item,
            position=index,
            text=text,
            weight=weight,
            z_weight=weight,
            n=0 if weight is None else len(ratings[0]) if ratings else 3,
            rating_values=ratings[0] if ratings else [],
            rating_raters=list(range(1, len(ratings[0]) + 1)) if ratings and with_raters else [],
        )
        for item, (_, _, refs) in zip(release_items, items, strict=True)
        for index, (text, weight, *ratings) in enumerate(refs)
    )
    Release.objects.filter(pk=release.pk).update(status="published", published_at=timezone.now())
    release.refresh_from_db()
    return release


@pytest.fixture
def make_release(owner):
    """A published release built row by row (no campaign needed)."""

    def make(**fields):
        return release_of(owner, **fields)

    return make


def leaderboard_of(owner, *, release, split="dev", slug="board", **fields):
    """`owner`'s leaderboard `slug` on the split of a release."""
    from scoring.leaderboards.services.leaderboards import leaderboard_create

    return leaderboard_create(
        owner=owner, release=release, split=split, name=slug.title(), slug=slug, **fields
    )


@pytest.fixture
def make_leaderboard(owner, make_release):
    def make(*, release=None, **fields):
        return leaderboard_of(owner, release=release or make_release(), **fields)

    return make
