"""The demo's first chapter: its users and a dataset written for this project (the rest of the
story, campaigns to studies, is built on it by `scoring/demo`)."""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth import get_user_model
from django.db import transaction

from annotate.accounts.models import Role
from annotate.accounts.services import user_create
from annotate.datasets.models import Dataset, Visibility
from annotate.datasets.services.datasets import dataset_create, dataset_import_file

DEMO_FILE = Path(__file__).resolve().parent.parent / "fixtures" / "demo_dataset.jsonl"
# A known password is the point of a local demo; load_demo refuses to run when DEBUG is off.
DEMO_PASSWORD = "deltableu-demo"  # noqa: S105
DEMO_USERS = (
    ("admin", Role.RESEARCHER, True),
    ("ada", Role.RESEARCHER, False),
    ("rita", Role.RATER, False),
    ("raj", Role.RATER, False),
    ("pat", Role.RESEARCHER, False),
)
# What each login is for, as `make run` prints it.
DEMO_ROLES = {
    "admin": "staff",
    "ada": "researcher, owner of the demo",
    "rita": "rater",
    "raj": "rater",
    "pat": "participant on the leaderboards",
}
DEMO_SLUG = "demo-dialogue"


@transaction.atomic
def demo_load() -> list[tuple[str, str, str]]:
    """Create what is missing of the demo; running it again changes nothing."""
    User = get_user_model()
    logins = []
    for username, role, is_staff in DEMO_USERS:
        if not User.objects.filter(username=username).exists():
            user_create(username=username, password=DEMO_PASSWORD, role=role, is_staff=is_staff)
        logins.append((username, DEMO_PASSWORD, DEMO_ROLES[username]))
    if not Dataset.objects.filter(slug=DEMO_SLUG).exists():
        dataset = dataset_create(
            owner=User.objects.get(username="ada"),
            name="Demo: everyday dialogue",
            slug=DEMO_SLUG,
            description="Thirty short conversations, each with 8-12 candidate replies of mixed "
            "quality: the original reply, mined replies, the parroted message and written ones.",
            language="en",
            visibility=Visibility.PUBLIC,
        )
        with DEMO_FILE.open("rb") as lines:
            dataset_import_file(dataset=dataset, lines=lines, fmt="jsonl")
    return logins
