#!/bin/sh
# Starts any DeltaBLEU Studio process (web, worker, beat) once its services are reachable.
#   1. Wait until the database, the broker and the object store (S3_ENDPOINT_URL, when set)
#      accept TCP connections (DEPENDENCY_WAIT_SECONDS).
#   2. RUN_MIGRATIONS=true (the web service only): apply migrations.
#      Otherwise wait until another process has applied them, so a worker or beat never runs
#      against an older schema (beat's DatabaseScheduler needs its tables) — unless
#      WAIT_FOR_MIGRATIONS=false: a process that uses no database (the s3-bucket service, which
#      the web service itself waits for).
#   3. exec the command, so it gets the signals (docker stop → graceful shutdown).
set -eu

RUN_MIGRATIONS="${RUN_MIGRATIONS:-false}"
WAIT_FOR_MIGRATIONS="${WAIT_FOR_MIGRATIONS:-true}"
DEPENDENCY_WAIT_SECONDS="${DEPENDENCY_WAIT_SECONDS:-120}"

for flag in RUN_MIGRATIONS WAIT_FOR_MIGRATIONS; do
    eval "value=\$$flag"
    case "$value" in
        true | false) ;;
        *)
            echo "entrypoint: $flag must be \"true\" or \"false\", not \"$value\"" >&2
            exit 2
            ;;
    esac
done

python - "$DEPENDENCY_WAIT_SECONDS" <<'PY'
import os
import socket
import sys
import time
from urllib.parse import urlsplit

DEFAULT_PORTS = {
    "postgres": 5432, "postgresql": 5432, "pgsql": 5432, "redis": 6379, "rediss": 6379,
    "http": 80, "https": 443,
}
deadline = time.monotonic() + int(sys.argv[1])

for name in ("DATABASE_URL", "CELERY_BROKER_URL", "S3_ENDPOINT_URL"):
    url = urlsplit(os.environ.get(name, ""))
    # SQLite, the file-system broker and AWS S3 (no endpoint set) need no server of ours.
    if url.scheme not in DEFAULT_PORTS or not url.hostname:
        continue
    address = (url.hostname, url.port or DEFAULT_PORTS[url.scheme])
    while True:
        try:
            socket.create_connection(address, timeout=3).close()
            break
        except OSError as error:
            if time.monotonic() > deadline:
                sys.exit(f"entrypoint: {name} host {address[0]}:{address[1]} unreachable: {error}")
            print(f"entrypoint: waiting for {name} at {address[0]}:{address[1]} ...", flush=True)
            time.sleep(2)
PY

if [ "$RUN_MIGRATIONS" = "true" ]; then
    python manage.py migrate --noinput
elif [ "$WAIT_FOR_MIGRATIONS" = "true" ]; then
    waited=0
    until python manage.py migrate --check >/dev/null 2>&1; do
        if [ "$waited" -ge "$DEPENDENCY_WAIT_SECONDS" ]; then
            echo "entrypoint: migrations still unapplied after ${waited}s;" \
                "start the web service (RUN_MIGRATIONS=true) or run 'python manage.py migrate'" >&2
            python manage.py migrate --check
            exit 1
        fi
        echo "entrypoint: waiting for migrations to be applied ..."
        sleep 5
        waited=$((waited + 5))
    done
fi

exec "$@"
