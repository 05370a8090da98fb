"""Import a release archive (.zip) from another installation; every file must come out identical
(same SHA-256), or nothing is imported."""

from pathlib import Path

from django.core.management.base import BaseCommand

from annotate.accounts.commands import user_named
from annotate.releases.services.importing import release_import_archive
from core.command_args import file_to_read
from core.refusals import refusal_as_command_error


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("archive", type=Path)
        parser.add_argument("--owner", required=True, help="Username that will own it.")
        parser.add_argument("--slug", help="Dataset slug here (default: the original's).")

    def handle(self, *args, archive, owner, slug, **options):
        user = user_named(owner)
        file_to_read(archive)
        with refusal_as_command_error(), archive.open("rb") as source:
            release = release_import_archive(source=source, owner=user, slug=slug)
        self.stdout.write(
            f"Imported {release.dataset.slug} {release.version}: manifest "
            f"{release.manifest_checksum}"
        )
