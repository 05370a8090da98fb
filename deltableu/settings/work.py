"""Settings of long work: the Celery broker and queues, the run engine, scoring and studies."""

from __future__ import annotations

import os
from pathlib import Path

from deltableu.env import env_int, env_str
from deltableu.settings.paths import VAR_DIR

# --- Celery ----------------------------------------------------------------------------------
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://")
CELERY_DIR = VAR_DIR / "celery"
if CELERY_BROKER_URL.startswith("filesystem://"):
    for _folder in ("queue", "control", "processed"):
        (CELERY_DIR / _folder).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(CELERY_DIR / "queue"),
        "data_folder_out": str(CELERY_DIR / "queue"),
        "control_folder": str(CELERY_DIR / "control"),
        "store_processed": True,
        "processed_folder": str(CELERY_DIR / "processed"),
        "polling_interval": 0.2,
    }
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 3600)
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 3300)
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    # Redis hands an unacknowledged task to another worker after this long: it must exceed
    # the longest task, or a slow task runs twice.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 2 * CELERY_TASK_TIME_LIMIT}
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", "django-db")
CELERY_RESULT_EXTENDED = True
CELERY_RESULT_EXPIRES = 7 * 24 * 3600
# Separate queues let one machine host several independent worker pools (and tests isolate).
# Light work (rater QC, weights, statistics, sweeps) goes to the default queue; heavy work
# (scoring, studies, mining, indexes, archives) to its own, so that a big submission never
# delays raters: run workers for each (`-Q celery` and `-Q celery-heavy`), or one for both.
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_TASK_DEFAULT_QUEUE", "celery")
CELERY_HEAVY_QUEUE = env_str("CELERY_HEAVY_QUEUE", f"{CELERY_TASK_DEFAULT_QUEUE}-heavy")
# Runs go to the queue of their kind's weight (core.runs.kinds); the parts of a chord follow.
HEAVY_TASKS = (
    "scoring.leaderboards.tasks.score_chunk",
    "scoring.leaderboards.tasks.finish_submission",
    "scoring.leaderboards.tasks.prepare_leaderboard",
)
CELERY_TASK_ROUTES = {name: {"queue": CELERY_HEAVY_QUEUE} for name in HEAVY_TASKS}
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A pool process whose resident memory passed this after a task (building a large reference
# index, say) is replaced by a fresh one: freed Python memory is not given back to the system,
# so without this a worker would keep the peak of its largest task for good.
CELERY_WORKER_MAX_MEMORY_PER_CHILD = env_int("WORKER_MAX_MEMORY_MB", 1536) * 1024  # KiB
CELERY_TASK_ALWAYS_EAGER = False
CELERY_TASK_TRACK_STARTED = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# --- Runs (core.runs): heartbeats every few seconds, a sweep every 10 s; an attempt silent past
# its kind's grace is retried with the next attempt number, so a killed worker's run is taken
# up again within about a minute of a worker being available. The sweep is a few indexed
# queries; every second it waits is a second more before a killed worker's work is retried.
RUNS_HEARTBEAT_SECONDS = env_int("RUNS_HEARTBEAT_SECONDS", 5)
RUNS_SWEEP_SECONDS = env_int("RUNS_SWEEP_SECONDS", 10)
RUNS_REDISPATCH_SECONDS = env_int("RUNS_REDISPATCH_SECONDS", 300)
RUNS_RETRY_BACKOFF_SECONDS = env_int("RUNS_RETRY_BACKOFF_SECONDS", 5)
RUNS_TMP_DIR = Path(env_str("RUNS_TMP_DIR", str(VAR_DIR / "runs")))
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_BEAT_SCHEDULE = {
    # The embedded brokers never redeliver a task lost with a killed worker: this sweep
    # recomputes whatever such a loss left stale.
    "datasets-refresh-stale-stats": {
        "task": "annotate.datasets.tasks.datasets_refresh_stale_stats",
        "schedule": 300.0,
        "options": {"expires": 240},
    },
    # Abandoned rating leases go back to the pool even when no rater asks for work.
    "leases-reclaim": {
        "task": "annotate.rating.tasks.leases_reclaim",
        "schedule": 60.0,
        "options": {"expires": 50},
    },
    # Adaptive campaigns whose priorities are stale (a lost debounced task, a board's score).
    "adaptive-priorities-sweep": {
        "task": "annotate.rating.tasks.priorities_sweep",
        "schedule": 120.0,
        "options": {"expires": 110},
    },
    # The run engine's sweep: sends what waits in the outbox (the broker was down), retries
    # attempts whose heartbeat went silent, fails them after their last attempt.
    "runs-sweep": {
        "task": "runs.sweep",
        "schedule": float(RUNS_SWEEP_SECONDS),
        "options": {"expires": RUNS_SWEEP_SECONDS * 0.9},
    },
    "celery-results-cleanup": {
        "task": "celery.backend_cleanup",
        "schedule": 24 * 3600.0,
        "options": {"expires": 3600},
    },
}

# Items per scoring chunk: larger submissions are scored in parallel chunks (a Celery chord).
SCORING_CHUNK_ITEMS = env_int("SCORING_CHUNK_ITEMS", 50_000)
# A chord's parts cannot beat while they wait in the queue: the attempt is leased this long when
# the chord starts (a killed worker's chord is retried after at most this much).
SCORING_CHORD_LEASE_SECONDS = env_int("SCORING_CHORD_LEASE_SECONDS", 600)

# A correlation study's parallelism inside its worker: processes forked for the per-item
# statistics, threads for the unit sums and correlations.
STUDY_PROCESSES = env_int("STUDY_PROCESSES", 1)
STUDY_THREADS = env_int("STUDY_THREADS", min(4, os.cpu_count() or 1))
