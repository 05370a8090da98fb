"""Create the demo users, dataset and story: a finished campaign, a release, leaderboards, a human
evaluation and a study (safe to run again; DEBUG only)."""

import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from scoring.demo.services.load import demo_load_all


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument(
            "--allow-production",
            action="store_true",
            help="Load the demo, with its publicly known passwords, even when DEBUG is False.",
        )

    def handle(self, *args, allow_production, **options):
        if not settings.DEBUG and not allow_production:
            raise CommandError(
                "The demo users have publicly known passwords; with DEBUG off, pass "
                "--allow-production if you really want them."
            )
        started = time.monotonic()
        logins, built = demo_load_all()
        took = time.monotonic() - started
        story = f"story built in {took:.0f} s" if built else "story already there"
        self.stdout.write(self.style.SUCCESS(f"Demo ready ({story}). Logins:"))
        for username, password, role in logins:
            self.stdout.write(f"  {username:<6} / {password}   {role}")
