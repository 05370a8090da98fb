"""Column mappings remembered per user: once a user has said which column of a file is what
(or how its cells are split), the next file with the same header is read that way unasked.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from annotate.judgments.bundles import Bundle
from annotate.judgments.columns import header_key
from annotate.judgments.models import ColumnMapping
from annotate.judgments.selectors import column_mapping_recall

__all__ = ["column_mapping_recall", "column_mapping_remember"]  # recall: read with remember

MAX_PER_USER = 50  # mappings kept per user, the least recently used go: the table stays small
MAX_HEADER_NAMES = 100  # kept for the admin; the hash covers them all


@transaction.atomic
def column_mapping_remember(*, owner: User, bundle: Bundle) -> None:
    """Keep the roles (and the judgments file's options) of each file of `bundle` that has a
    header, replacing what was kept for the same header."""
    for file, (header, roles, options) in bundle.remembrance().items():
        ColumnMapping.objects.update_or_create(
            owner=owner,
            file=file,
            header_hash=header_key(header),
            defaults={"header": header[:MAX_HEADER_NAMES], "roles": roles, "options": options},
        )
    stale = ColumnMapping.objects.filter(owner=owner).order_by("-updated_at")[MAX_PER_USER:]
    ColumnMapping.objects.filter(pk__in=list(stale.values_list("pk", flat=True))).delete()
