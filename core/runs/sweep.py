"""The periodic sweep: send what waits in the outbox, and retry attempts whose worker died.

It runs every RUNS_SWEEP_SECONDS from beat, and once when a worker starts. Each change is a
conditional UPDATE, so two sweeps at once never both act on the same attempt.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from core.runs.engine import run_attempt_failed, run_dispatch
from core.runs.kinds import get_kind
from core.runs.models import Run, RunState
from core.runs.steps import parts_lost, silent_steps
from core.runs.tempfiles import tmp_remove_orphans
from core.runs.workers import workers_forget_dead

log = logging.getLogger(__name__)

# A dead worker's row is kept a while for the admin to show, then removed.
WORKERS_FORGOTTEN_AFTER = timedelta(days=1)


@dataclass(frozen=True)
class SweepReport:
    dispatched: int
    retried: int


def _outbox() -> list[tuple[int, int]]:
    """Queued attempts never accepted by the broker, or accepted long ago and still not taken
    (an embedded broker loses a message with a killed worker; a duplicate is harmless, since
    only one message can claim the attempt)."""
    resend_before = timezone.now() - timedelta(seconds=settings.RUNS_REDISPATCH_SECONDS)
    waiting = Run.objects.filter(state=RunState.QUEUED).filter(
        Q(dispatched_at__isnull=True) | Q(dispatched_at__lt=resend_before)
    )
    return list(waiting.values_list("pk", "attempt"))


SILENT = "its worker stopped responding (killed, or its machine was lost)"
PART_LOST = f"{SILENT} holding a part it had not started"


def _silent() -> dict[tuple[int, int, str], str]:
    """Running attempts, with the reason to retry each: their heartbeat is older than their
    kind's grace, a started step (a part of a chord) stopped beating before it finished, or a
    dead worker took parts it never started (core/runs/steps.py)."""
    now = timezone.now()
    candidates = Run.objects.filter(state=RunState.RUNNING).values_list(
        "pk", "attempt", "kind", "heartbeat_at"
    )
    silent = []
    for pk, attempt, kind, heartbeat_at in candidates:
        try:
            grace = get_kind(kind).grace
        except LookupError:
            continue  # a kind this process does not know: another app's worker handles it
        if heartbeat_at is None or heartbeat_at < now - grace:
            silent.append((pk, attempt, kind))
    found = dict.fromkeys(parts_lost(now), PART_LOST)
    found.update(dict.fromkeys([*silent, *silent_steps(now)], SILENT))
    return dict(sorted(found.items()))


def run_sweep() -> SweepReport:
    retried = 0
    for (pk, attempt, kind), reason in _silent().items():
        log.warning("run %s (%s) attempt %s: %s; retrying", pk, kind, attempt, reason)
        run_attempt_failed(run_id=pk, attempt=attempt, reason=reason)
        retried += 1
    dispatched = sum(run_dispatch(run_id=pk, attempt=attempt) for pk, attempt in _outbox())
    workers_forget_dead(before=timezone.now() - WORKERS_FORGOTTEN_AFTER)
    return SweepReport(dispatched, retried)


def run_sweep_local_files() -> int:
    """Remove this machine's temporary folders of attempts that are not running any more."""
    live = set(Run.objects.filter(state=RunState.RUNNING).values_list("pk", "attempt"))
    return tmp_remove_orphans(live)
