from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone


class Role(models.TextChoices):
    RATER = "rater"
    RESEARCHER = "researcher"


class Profile(models.Model):
    """What a user may do beyond Django's flags: staff is `User.is_staff`, the rest is here."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    role = models.CharField(max_length=20, choices=Role.choices, default=Role.RATER)
    crowd_id = models.CharField(
        max_length=100, blank=True, help_text="Participant id from a crowd platform, if any."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["role"])]

    def __str__(self) -> str:
        return f"{self.user} ({self.role})"


def _new_invitation_token() -> str:
    return secrets.token_urlsafe(24)


class Invitation(models.Model):
    """A sign-up link for raters; it can be used `max_uses` times until it expires."""

    token = models.CharField(max_length=64, unique=True, default=_new_invitation_token)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations_sent"
    )
    role = models.CharField(max_length=20, choices=Role.choices, default=Role.RATER)
    note = models.CharField(max_length=200, blank=True)
    next_path = models.CharField(
        max_length=200,
        blank=True,
        help_text="Where the invited person lands after signing up or logging in: a path on "
        "this site, such as a campaign's link /r/…/ (empty: the home page).",
    )
    max_uses = models.PositiveIntegerField(default=1)
    uses = models.PositiveIntegerField(default=0)
    expires_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(uses__lte=models.F("max_uses")), name="invitation_uses_lte_max"
            )
        ]

    def __str__(self) -> str:
        return f"{self.role} invitation by {self.created_by} ({self.uses}/{self.max_uses})"

    @property
    def is_usable(self) -> bool:
        return self.uses < self.max_uses and self.expires_at > timezone.now()
