"""Reads of correlation studies: ownership, choices for the form, plots of the result."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet

from annotate.judgments.models import JudgmentSet
from annotate.rating.models import Campaign, Subject
from annotate.releases.models import Release
from core.errors import NotFound
from core.plots import line_svg
from scoring.study.models import CorrelationStudy


def study_get_managed(*, user: User | AnonymousUser, pk: int) -> CorrelationStudy:
    """The study if the user owns it (or is staff); others get a 404."""
    study = CorrelationStudy.objects.select_related("release__dataset", "run").filter(pk=pk)
    found = study.first()
    if found is None or not user.is_authenticated:
        raise NotFound("No such study.")
    if not (user.is_staff or found.owner_id == user.pk):
        raise NotFound("No such study.")
    return found


def studies_of(*, user: User) -> QuerySet[CorrelationStudy]:
    studies = CorrelationStudy.objects.select_related("release__dataset", "run")
    return studies if user.is_staff else studies.filter(owner=user)


def study_choices(*, user: User) -> dict[str, QuerySet]:
    """Releases, judgment sets and output campaigns of the user's datasets, each keyed by the
    study field that picks one of them (so a form limits each field's queryset by name)."""
    mine = {} if user.is_staff else {"dataset__owner": user}
    return {
        "release": Release.objects.filter(**mine).select_related("dataset"),
        "judgment_set": JudgmentSet.objects.filter(**mine).select_related("dataset"),
        "output_campaign": Campaign.objects.filter(subject=Subject.OUTPUTS, **mine).select_related(
            "dataset"
        ),
    }


SWEEP_TITLES = {
    "theta": "(A) Spearman's ρ by reference-weight threshold θ",
    "unit_size": "(B) Spearman's ρ by unit size M",
    "order": "(C) Spearman's ρ by n-gram order",
}


def study_plots(*, study: CorrelationStudy) -> list[dict]:
    """One SVG line chart per sweep and metric (Figure 2 of the paper)."""
    plots = []
    for sweep, series in (study.result.get("sweeps") or {}).items():
        title = SWEEP_TITLES.get(sweep, sweep)
        for metric, points in series.items():
            # An undefined coefficient (stored as null) has no point to draw.
            points = [(x, y) for x, y in points if y is not None and y == y]
            clean = [(float(x), max(float(y), 0.0)) for x, y in points]
            labels = [f"{x:g}: ρ = {y:.3f}" for x, y in points]
            plots.append(
                {
                    "sweep": sweep,
                    "metric": metric,
                    "title": f"{title} — {metric}",
                    # θ decreases to the right, as in the paper.
                    "svg": line_svg(
                        clean,
                        title=f"{title} — {metric}",
                        point_labels=labels,
                        x_descending=sweep == "theta",
                    ),
                }
            )
    return plots
