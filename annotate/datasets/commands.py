"""What the management commands about one dataset share: its slug, their first argument, and the
dataset it names."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotate.datasets.models import Dataset
from annotate.datasets.selectors import dataset_by_slug


class DatasetCommand(BaseCommand):
    """A command about one dataset, named by its slug (the first argument)."""

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="The dataset's slug.")

    def dataset(self, slug: str, refusal: str = "") -> Dataset:
        """The dataset of that slug, with its owner; otherwise the command ends with `refusal`
        (by default, one naming the slug)."""
        dataset = dataset_by_slug(slug=slug)
        if dataset is None:
            raise CommandError(refusal or f"No dataset {slug!r}.")
        return dataset
