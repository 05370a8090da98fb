from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from annotate.datasets.services.demo import demo_load


class Command(BaseCommand):
    help = "Create the demo users and the demo dataset (safe to run again; DEBUG only)."

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
        logins = demo_load()
        self.stdout.write(self.style.SUCCESS("Demo ready. Logins (username / password / role):"))
        for username, password, role in logins:
            self.stdout.write(f"  {username:<8} / {password} / {role}")
