"""Create a sign-up link for raters (or, by staff, researchers) and print it."""

from django.core.management.base import BaseCommand
from django.urls import reverse

from annotate.accounts.commands import user_named
from annotate.accounts.models import Role
from annotate.accounts.services import invitation_create
from core.refusals import refusal_as_command_error


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("--by", required=True, help="Username of the inviting researcher.")
        parser.add_argument("--role", choices=Role.values, default=Role.RATER)
        parser.add_argument("--uses", type=int, default=1, help="How many people may use it.")
        parser.add_argument("--base-url", default="http://127.0.0.1:8000")
        parser.add_argument(
            "--next",
            default="",
            dest="next_path",
            help="Where the invited land: a path on this site, such as a campaign's link /r/…/.",
        )

    def handle(self, *args, by, role, uses, base_url, next_path, **options):
        user = user_named(by, option="--by")
        with refusal_as_command_error():
            invitation = invitation_create(
                created_by=user, role=role, max_uses=uses, next_path=next_path
            )
        self.stdout.write(base_url.rstrip("/") + reverse("signup", args=[invitation.token]))
