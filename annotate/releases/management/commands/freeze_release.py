"""Freeze a release of a dataset with one campaign's weights (a draft), and with --publish write its
files and make it immutable."""

from pathlib import Path

from django.core.management.base import CommandError

from annotate.datasets.commands import DatasetCommand
from annotate.datasets.models import SplitName
from annotate.rating.selectors.campaigns import campaign_of_dataset
from annotate.releases.models import WeightVariant
from annotate.releases.services import release_freeze, release_publish
from annotate.releases.services.unrated import UNRATED_VALUES
from core.command_args import text_file_read
from core.refusals import refusal_as_command_error


class Command(DatasetCommand):
    help = __doc__

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("version", help="Semantic version, e.g. 1.0.0.")
        parser.add_argument("--campaign", type=int, required=True, help="Campaign id (weights).")
        parser.add_argument("--weights", choices=WeightVariant.values, default="raw")
        parser.add_argument(
            "--public-split",
            action="append",
            choices=SplitName.values,
            dest="public_splits",
            help="A split whose references are published (repeatable; default: dev).",
        )
        parser.add_argument("--include-ratings", action="store_true")
        parser.add_argument("--license", default="CC-BY-4.0")
        parser.add_argument("--citation-file", type=Path, help="A file with the BibTeX entry.")
        parser.add_argument("--description", default="")
        parser.add_argument(
            "--unrated",
            choices=UNRATED_VALUES,
            default="",
            help="References the campaign never rated: exclude them or give them weight 0 "
            "(without it, freezing is refused while there are some).",
        )
        parser.add_argument("--publish", action="store_true", help="Publish at once.")

    def handle(self, *args, slug, version, campaign, weights, public_splits, **options):
        refusal = f"No dataset {slug} with campaign {campaign}."
        dataset = self.dataset(slug, refusal)
        source = campaign_of_dataset(dataset=dataset, campaign_id=campaign)
        if source is None:
            raise CommandError(refusal)
        citation = (
            text_file_read(options["citation_file"], option="--citation-file")
            if options["citation_file"]
            else ""
        )
        with refusal_as_command_error():
            release = release_freeze(
                dataset=dataset,
                version=version,
                created_by=dataset.owner,
                campaign=source,
                weight_variant=weights,
                public_splits=public_splits or ["dev"],
                include_ratings=options["include_ratings"],
                license=options["license"],
                citation=citation,
                description=options["description"],
                unrated=options["unrated"],
            )
            if options["publish"]:
                release = release_publish(release=release)
        self.stdout.write(
            f"{slug} {version}: {release.status}, manifest {release.manifest_checksum}"
        )
