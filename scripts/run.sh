#!/usr/bin/env bash
# Start a Celery worker (with embedded beat) in the background and the web server in front;
# stop the worker when the web server stops. Usage: run.sh BIN HOST PORT
set -euo pipefail
bin=$1 host=$2 port=$3
export DEBUG=True
mkdir -p var

stop() {  # warm shutdown first (finish the task at hand), then no more waiting
  local pid=$1
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.5; done
  kill -KILL "$pid" 2>/dev/null || true
}

if [ -f var/worker.pid ] && kill -0 "$(cat var/worker.pid)" 2>/dev/null; then
  # A worker left by an earlier run: replace it, so two never share the queue.
  stop "$(cat var/worker.pid)"
fi
# One embedded worker takes both the light and the heavy queue.
"$bin/celery" -A deltableu worker -B -l info --concurrency 2 -Q celery,celery-heavy \
  --pidfile var/worker.pid --logfile var/worker.log &
worker=$!
trap 'stop $worker' EXIT
trap 'exit 130' INT TERM
cat <<MSG

  DeltaBLEU Studio is starting at  http://$host:$port/
  API docs:                        http://$host:$port/api/docs/
  Admin:                           http://$host:$port/admin/
  Worker log:                      var/worker.log
  Logins: admin (staff), ada (researcher, owner of the demo), rita and raj (raters),
          pat (leaderboard participant); password deltableu-demo
  Start with "Take the tour" on the home page.

MSG
"$bin/python" manage.py runserver "$host:$port"
