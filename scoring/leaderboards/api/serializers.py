"""Serializers of leaderboards: the API's responses and the JSON/CSV exports share them."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from scoring.leaderboards.leaderboard_forms import RESERVED_SLUGS
from scoring.leaderboards.models import (
    MAX_COUNTED_PER_TEAM,
    MAX_QUOTA,
    MAX_UPLOAD_BYTES,
    MIN_UPLOAD_BYTES,
    Leaderboard,
)
from scoring.leaderboards.selectors.leaderboard_table import TableRow
from scoring.leaderboards.selectors.significance import ALPHA
from scoring.leaderboards.services.leaderboards import BOARD_SETTINGS
from scoring.metrics import get_entry

SCORE_HELP = (
    "The metric as its paper defines it: for ΔBLEU and ΔNIST, at the release's weights (the "
    "mean rating of each reference, rescaled), which a maximum over noisy weights biases."
)
CORRECTED_HELP = (
    "ΔBLEU/ΔNIST corrected for the noise of the ratings behind the weights: an estimate of the "
    "score with the weights infinitely many raters would give (scoring.metrics.rater_estimate); "
    "null for a metric without weights, a release without individual ratings, or when the rater "
    "model is unavailable (rater_unavailable says why)."
)
RATER_CI_HELP = (
    "95% interval of the corrected score over items and raters (it covers the score at the true "
    "weights over a population of items); null when corrected_score is."
)
RATERS_ONLY_HELP = (
    "95% interval of the corrected score over raters alone: the score at the true weights on "
    "these very items."
)
UNAVAILABLE_HELP = "Why a weighted score has no corrected estimate (empty otherwise)."


class MetricScoreSerializer(serializers.Serializer):
    score = serializers.FloatField(help_text=SCORE_HELP)
    ci_low = serializers.FloatField(allow_null=True, help_text="95% bootstrap interval (items).")
    ci_high = serializers.FloatField(allow_null=True)
    corrected_score = serializers.FloatField(allow_null=True, help_text=CORRECTED_HELP)
    rater_ci_low = serializers.FloatField(allow_null=True, help_text=RATER_CI_HELP)
    rater_ci_high = serializers.FloatField(allow_null=True)
    raters_only_ci = serializers.SerializerMethodField(help_text=RATERS_ONLY_HELP)
    rater_unavailable = serializers.CharField(help_text=UNAVAILABLE_HELP)
    ratings_per_reference = serializers.FloatField(
        allow_null=True, help_text="Mean ratings per rated reference behind the rater model."
    )
    raters = serializers.IntegerField(
        allow_null=True,
        help_text="Raters behind the rater model; 0 when the release does not say who gave each "
        "rating (their own offsets are then counted as independent noise).",
    )
    rater_offset_sd = serializers.FloatField(
        allow_null=True,
        help_text="The spread of the raters' own offsets (rating points, part of the model's "
        "noise σ): one rater's offset moves every weight she rated, and the intervals count it.",
    )
    signature = serializers.CharField()

    @extend_schema_field(
        serializers.ListField(child=serializers.FloatField(), allow_null=True, min_length=2)
    )
    def get_raters_only_ci(self, score) -> list[float] | None:
        found = score.rater.get("raters_only")
        return [float(x) for x in found] if found else None


class LeaderboardRowSerializer(serializers.Serializer):
    position = serializers.IntegerField(help_text="1 is best.")
    group = serializers.IntegerField(
        allow_null=True,
        help_text="Rank group: a new group starts only where every entry above is significantly "
        "different from every entry below (paired bootstrap on the primary metric, Holm–Bonferroni "
        "over all pairs of ranked entries, p < 0.05); the compare answer is the same test.",
    )
    submission = serializers.IntegerField(source="submission.pk")
    team = serializers.CharField(source="submission.team.name")
    method = serializers.CharField(source="submission.method")
    description = serializers.CharField(source="submission.description")
    url = serializers.CharField(source="submission.url")
    is_baseline = serializers.BooleanField(source="submission.is_baseline")
    is_public = serializers.BooleanField(source="submission.is_public")
    submitted_at = serializers.DateTimeField(source="submission.submitted_at")
    finished_at = serializers.DateTimeField(source="submission.finished_at")
    score = serializers.FloatField(
        source="primary.score", allow_null=True, default=None, help_text=SCORE_HELP
    )
    corrected_score = serializers.FloatField(
        source="primary.corrected_score", allow_null=True, default=None, help_text=CORRECTED_HELP
    )
    ci_low = serializers.FloatField(source="primary.ci_low", allow_null=True, default=None)
    ci_high = serializers.FloatField(source="primary.ci_high", allow_null=True, default=None)
    rater_ci_low = serializers.FloatField(
        source="primary.rater_ci_low", allow_null=True, default=None, help_text=RATER_CI_HELP
    )
    rater_ci_high = serializers.FloatField(
        source="primary.rater_ci_high", allow_null=True, default=None
    )
    rater_unavailable = serializers.CharField(
        source="primary.rater_unavailable", default="", help_text=UNAVAILABLE_HELP
    )
    rank_probabilities = serializers.ListField(
        source="rank_probs",
        child=serializers.FloatField(),
        allow_null=True,
        help_text="P(rank 1), P(rank 2), … of this entry over the bootstrap replicates of the "
        "entries ranked in this view, m entries tied in a replicate sharing the m ranks they "
        "span equally (null without replicates).",
    )
    expected_rank = serializers.FloatField(allow_null=True)
    order_holds_with_next = serializers.FloatField(
        source="order_holds",
        allow_null=True,
        help_text="Share of replicates in which this entry stays ahead of the next ranked one, "
        "ties counting half (null for the last).",
    )
    scores = serializers.SerializerMethodField()

    @extend_schema_field(serializers.DictField(child=MetricScoreSerializer()))
    def get_scores(self, row: TableRow) -> dict:
        return {
            name: MetricScoreSerializer(score).data
            for name, score in row.scores.items()
            if score is not None
        }


class LeaderboardSummarySerializer(serializers.ModelSerializer):
    release = serializers.SerializerMethodField()
    release_id = serializers.IntegerField()
    split = serializers.CharField(help_text="dev or test")
    owner = serializers.CharField(source="owner.username")
    higher_is_better = serializers.SerializerMethodField()

    class Meta:
        model = Leaderboard
        fields = [
            "slug",
            "release",
            "release_id",
            "split",
            "owner",
            "primary_metric",
            "higher_is_better",
            "metric_options",
            "companion_metrics",
            *BOARD_SETTINGS,
            "created_at",
        ]

    def get_release(self, board: Leaderboard) -> str:
        """`<dataset-slug>@<version>`."""
        return f"{board.release.dataset.slug}@{board.release.version}"

    def get_higher_is_better(self, board: Leaderboard) -> bool:
        return get_entry(board.primary_metric).higher_is_better


class RankGroupsMethodSerializer(serializers.Serializer):
    test = serializers.CharField(help_text="The paired test of every pair of ranked entries.")
    correction = serializers.CharField(
        help_text="The multiple-comparison correction, and over what."
    )


class RankStabilityMethodSerializer(serializers.Serializer):
    available = serializers.BooleanField(
        help_text="Every ranked entry has replicates (two or more entries)."
    )
    with_raters = serializers.BooleanField(
        help_text="The replicates resample each reference's ratings too (a weighted primary "
        "metric on a release with individual ratings)."
    )
    method = serializers.CharField()


class LeaderboardDetailSerializer(serializers.Serializer):
    leaderboard = LeaderboardSummarySerializer()
    signature = serializers.CharField(help_text="The primary metric's signature.")
    references_visible = serializers.BooleanField(
        help_text="Whether you may download the references of this split."
    )
    rank_groups = RankGroupsMethodSerializer(
        help_text="How the groups were drawn; the compare answer uses the same test."
    )
    rank_stability = RankStabilityMethodSerializer(
        help_text="How the rank distributions and P(ahead of next) were drawn."
    )
    rows = LeaderboardRowSerializer(many=True)


class MetricComparisonSerializer(serializers.Serializer):
    metric = serializers.CharField()
    display_name = serializers.CharField()
    higher_is_better = serializers.BooleanField()
    score_a = serializers.FloatField()
    score_b = serializers.FloatField()
    difference = serializers.FloatField(help_text="score_a − score_b")
    p_bootstrap = serializers.FloatField(
        help_text=(
            "Paired bootstrap (Koehn 2004, 1,000 resamples), two-sided, uncorrected "
            "(1 for equal scores)."
        )
    )
    ranks_the_board = serializers.BooleanField(
        help_text="The primary metric: its test, corrected, is `answer`."
    )


class PairAnswerSerializer(serializers.Serializer):
    on_board = serializers.BooleanField(
        help_text="Both are ranked on the board as you see it; otherwise a single test."
    )
    test = serializers.CharField()
    correction = serializers.CharField()
    pairs = serializers.IntegerField(help_text="Tests in the corrected family.")
    p_value = serializers.FloatField(help_text="Before correction (1 for equal scores).")
    p_adjusted = serializers.FloatField(help_text="After the correction.")
    significant = serializers.BooleanField(help_text=f"p_adjusted < {ALPHA}.")
    group_a = serializers.IntegerField(allow_null=True, help_text="A's rank group on the board.")
    group_b = serializers.IntegerField(allow_null=True)
    same_group = serializers.BooleanField(allow_null=True)
    grouped_although_significant = serializers.BooleanField(
        help_text="One group although significant: an entry between them ties with one of them."
    )


class ComparedSubmissionSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    team = serializers.CharField(source="team.name")
    method = serializers.CharField()
    is_baseline = serializers.BooleanField()


class LeaderboardComparisonSerializer(serializers.Serializer):
    a = ComparedSubmissionSerializer()
    b = ComparedSubmissionSerializer()
    answer = PairAnswerSerializer(
        allow_null=True, help_text="The board's significance answer for the pair."
    )
    metrics = MetricComparisonSerializer(many=True)


class LeaderboardCreateSerializer(serializers.Serializer):
    release = serializers.CharField(help_text='"<dataset-slug>@<version>" or the release id.')
    # A plain string: a second "dev/test" choice set would collide in the schema's enum names.
    split = serializers.RegexField(r"^(dev|test)$", default="dev", help_text="dev or test")
    name = serializers.CharField(max_length=200)
    slug = serializers.SlugField(max_length=100)
    description = serializers.CharField(required=False, allow_blank=True, default="")
    primary_metric = serializers.CharField(default="dbleu")
    metric_options = serializers.DictField(required=False, default=dict)
    companion_metrics = serializers.ListField(
        child=serializers.CharField(), required=False, default=["bleu", "sbleu"]
    )
    is_public = serializers.BooleanField(required=False, default=True)
    # Bounded as the settings are: a board opened with more could never be saved again.
    daily_quota = serializers.IntegerField(
        required=False, min_value=1, max_value=MAX_QUOTA, default=5
    )
    total_quota = serializers.IntegerField(
        required=False, min_value=1, max_value=MAX_QUOTA, default=100
    )
    max_upload_bytes = serializers.IntegerField(
        required=False,
        min_value=MIN_UPLOAD_BYTES,
        max_value=MAX_UPLOAD_BYTES,
        default=200 * 1024 * 1024,
        help_text="Uploads above it are refused with a 400 that names the limit.",
    )
    counted_per_team = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_COUNTED_PER_TEAM,
        default=1,
        help_text="Test leaderboards: how many submissions a team may pick to count.",
    )

    def validate_slug(self, slug: str) -> str:
        if slug in RESERVED_SLUGS:
            raise serializers.ValidationError(f"{slug!r} is taken by a page; choose another.")
        return slug


class LeaderboardSettingsSerializer(serializers.Serializer):
    """The owner's settings; each is optional (PATCH)."""

    name = serializers.CharField(max_length=200, required=False)
    description = serializers.CharField(required=False, allow_blank=True)
    is_public = serializers.BooleanField(required=False)
    is_open = serializers.BooleanField(required=False, help_text="Accepting submissions.")
    daily_quota = serializers.IntegerField(required=False, min_value=1, max_value=MAX_QUOTA)
    total_quota = serializers.IntegerField(required=False, min_value=1, max_value=MAX_QUOTA)
    max_upload_bytes = serializers.IntegerField(
        required=False,
        min_value=MIN_UPLOAD_BYTES,
        max_value=MAX_UPLOAD_BYTES,
        help_text="Uploads above it are refused with a 400 that names the limit.",
    )
    counted_per_team = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_COUNTED_PER_TEAM,
        help_text="Test leaderboards: how many submissions a team may pick to count.",
    )
