from django.core.management.base import BaseCommand

from annotate.services.demo import demo_load


class Command(BaseCommand):
    help = "Create the demo users and the demo dataset (safe to run again)."

    def handle(self, *args, **options):
        logins = demo_load()
        self.stdout.write(self.style.SUCCESS("Demo ready. Logins (username / password / role):"))
        for username, password, role in logins:
            self.stdout.write(f"  {username:<8} / {password} / {role}")
