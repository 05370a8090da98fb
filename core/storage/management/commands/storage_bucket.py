"""Create the S3 bucket (STORAGE_BACKEND=s3) unless it exists: docker/compose.yaml runs it once
before the web server and the workers start."""

from __future__ import annotations

import time
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.storage.services import storage_bucket_ensure

# Between two tries while the store starts (MinIO answers within seconds of its port opening).
RETRY_SECONDS = 2


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--wait",
            type=int,
            default=0,
            metavar="SECONDS",
            help="Try again this long while the store cannot be reached or is starting.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        deadline = time.monotonic() + max(0, options["wait"])
        while True:
            try:
                self.stdout.write(storage_bucket_ensure())
                return
            except (BotoCoreError, ClientError) as exc:
                if time.monotonic() + RETRY_SECONDS > deadline or not _transient(exc):
                    raise CommandError(f"The object store refused: {exc}") from exc
                self.stderr.write(f"Waiting for the object store: {exc}")
                time.sleep(RETRY_SECONDS)


def _transient(exc: Exception) -> bool:
    """Unreachable, or answering 5xx (starting): worth another try. A refusal (a wrong key, a
    bucket someone else owns) is not."""
    if isinstance(exc, ClientError):
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
        return status >= 500
    return True
