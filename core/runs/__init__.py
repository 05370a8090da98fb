"""The run engine: one way to do long work in Celery, for every app.

A `Run` is a unit of long work (scoring, a study, mining, an index, an archive) with a kind, an
owner, a state, an attempt number, a heartbeat, progress, stage timings and a failure reason.
Apps register a `RunKind` (its body and hooks) and start work with `run_create`; the engine
dispatches after commit through an outbox, retries a silent or failed attempt with the next
attempt number (a late worker of an older attempt can no longer write), gives up after the kind's
maximum attempts with a readable reason, and removes each run's temporary files at every ending.
Workers beat for themselves too: which queues have a worker (why a queued run waits), and
whether a chord part was lost with a worker that died before starting it.

This package is a platform piece: it imports Django and Celery, never an app of the project.
"""
