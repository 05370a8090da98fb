"""The tour of the demo on the home page: the story's pages, those that exist, in story order."""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import reverse

from annotate.rating.models import Campaign
from annotate.releases.models import Release
from scoring.demo import names
from scoring.leaderboards.models import Leaderboard, Submission
from scoring.study.models import CorrelationStudy


@dataclass(frozen=True)
class Stop:
    title: str
    url: str
    what: str
    logins: tuple[str, ...] = ()  # the demo logins who see the page (none: anyone)


def _campaign(dataset_id: int, name: str) -> Campaign | None:
    return Campaign.objects.filter(dataset_id=dataset_id, name=name).first()


def _compare_url(board: Leaderboard) -> str:
    # The two entries that share the first rank group: "tied" is worth a look.
    top = list(
        Submission.objects.filter(leaderboard=board, status="finished")
        .order_by("pk")
        .values_list("pk", flat=True)[:2]
    )
    query = f"?a={top[0]}&b={top[1]}" if len(top) == 2 else ""
    return reverse("leaderboard-compare", args=[board.slug]) + query


def _story_stops(board: Leaderboard) -> list[Stop]:
    dataset = board.release.dataset
    stops = []
    if (campaign := _campaign(dataset.pk, names.FIRST_CAMPAIGN)) is not None:
        url = reverse("campaign-dashboard", args=[campaign.pk])
        stops.append(
            Stop(
                "A finished rating campaign",
                url,
                "three raters, their agreement, quality control and live weights",
                ("ada",),
            )
        )
    release = Release.objects.filter(dataset=dataset, version=names.RELEASE_VERSION).first()
    if release is not None:
        url = reverse("release-detail", args=[dataset.slug, release.version])
        stops.append(
            Stop(
                "A published release",
                url,
                "its files, checksums and datasheet; the test split hidden",
            )
        )
    url = reverse("leaderboard-detail", args=[board.slug])
    stops.append(Stop("A test leaderboard", url, "four baselines with intervals and rank groups"))
    stops.append(
        Stop(
            "Two entries compared",
            _compare_url(board),
            "item by item, with the significance test",
        )
    )
    study = CorrelationStudy.objects.filter(dataset=dataset, name=names.STUDY_NAME).first()
    if study is not None and study.output_campaign_id is not None:
        url = reverse("campaign-dashboard", args=[study.output_campaign_id])
        stops.append(
            Stop("A human evaluation", url, "the raters' scores of the four baselines", ("ada",))
        )
    if study is not None:
        url = reverse("study-detail", args=[study.pk])
        stops.append(
            Stop(
                "A correlation study",
                url,
                "which metric agrees with the raters: tables and plots",
                ("ada",),
            )
        )
    return stops


def _your_turn_stops(board: Leaderboard) -> list[Stop]:
    stops = []
    if (campaign := _campaign(board.release.dataset_id, names.OPEN_CAMPAIGN)) is not None:
        url = reverse("campaign-rate", args=[campaign.pk])
        stops.append(
            Stop(
                "Rate references yourself",
                url,
                "an open campaign, ready at once (keys 1–5)",
                ("rita", "raj"),
            )
        )
    if Leaderboard.objects.filter(slug=names.DEV_BOARD).exists():
        url = reverse("submission-new", args=[names.DEV_BOARD])
        stops.append(Stop("Submit a system", url, "to the open dev leaderboard", ("pat",)))
    stops.append(
        Stop(
            "Runs",
            reverse("run-list"),
            "every scoring and study run, with its stages and timings",
            ("ada",),
        )
    )
    return stops


def demo_tour() -> list[Stop]:
    """One stop per part of the product the demo shows, in story order; empty without it."""
    board = (
        Leaderboard.objects.select_related("release__dataset").filter(slug=names.TEST_BOARD).first()
    )
    if board is None:
        return []
    return _story_stops(board) + _your_turn_stops(board)
