"""`{% studies_section %}`: the user's correlation studies, for the home page (which cannot
import scoring itself)."""

from __future__ import annotations

from django import template

from scoring.study.selectors import studies_of

register = template.Library()

HOME_LIMIT = 5


@register.inclusion_tag("scoring/includes/study_section.html", takes_context=True)
def studies_section(context: template.Context) -> dict:
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"studies": [], "signed_in": False}
    return {"studies": list(studies_of(user=user).order_by("-pk")[:HOME_LIMIT]), "signed_in": True}
