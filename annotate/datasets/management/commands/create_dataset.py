"""Create an empty dataset (to import items or human judgments into next). Example: create_dataset
dialogue-2026 --name 'Dialogue 2026' --owner ada"""

from django.core.management.base import BaseCommand, CommandError

from annotate.accounts.commands import user_named
from annotate.datasets.models import Visibility
from annotate.datasets.services.datasets import dataset_create
from core.refusals import refusal_as_command_error


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("slug", help="Short name used in links, e.g. dialogue-2026.")
        parser.add_argument("--name", required=True, help="The dataset's title.")
        parser.add_argument("--owner", required=True, help="Username of the owner.")
        parser.add_argument("--description", default="")
        parser.add_argument("--language", default="en", help="BCP 47 tag (default en).")
        # Checked here rather than by argparse `choices`, so the error is one line like the rest.
        parser.add_argument(
            "--visibility", default=Visibility.PRIVATE, help="private (default) or public."
        )

    def handle(self, *args, owner, visibility, **options):
        if visibility not in Visibility.values:
            raise CommandError(
                f"--visibility: {visibility!r} is not one of {', '.join(Visibility.values)}."
            )
        user = user_named(owner)
        fields = {name: options[name] for name in ("slug", "name", "description", "language")}
        with refusal_as_command_error():
            dataset = dataset_create(owner=user, visibility=visibility, **fields)
        self.stdout.write(
            self.style.SUCCESS(f"Created {dataset.visibility} dataset {dataset.slug} (empty).")
        )
