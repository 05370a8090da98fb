"""Template filters of the run engine, for every page that shows a run."""

from __future__ import annotations

from django import template

from core.runs.models import Run
from core.runs.queue_selectors import waiting_reason as reason_of

register = template.Library()


@register.filter
def waiting_reason(run: Run | None) -> str:
    """`{{ run|waiting_reason }}`: why a queued run still waits ("" when it need not say)."""
    return reason_of(run) if isinstance(run, Run) else ""
