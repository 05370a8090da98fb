"""The API's shapes for imported judgments: an import with its counted report, a refusal with
its problems (and the columns preview when they could not be told apart), the preview."""

from __future__ import annotations

from rest_framework import serializers

from annotate.datasets.serializers import dataset_slug_field
from annotate.judgments.columns import ROLES
from annotate.judgments.models import JudgmentSet


class JudgmentProblemSerializer(serializers.Serializer):
    file = serializers.CharField()
    line = serializers.IntegerField(help_text="1-based (the first one's); 0 for the whole file.")
    message = serializers.CharField(help_text='Like problems counted: "46 items have no …".')
    level = serializers.ChoiceField(choices=["error", "warning"], help_text="error: skipped")
    count = serializers.IntegerField(help_text="How many problems of this kind.")
    lines = serializers.ListField(child=serializers.IntegerField(), help_text="The first 20.")
    subjects = serializers.ListField(
        child=serializers.CharField(), help_text="The first 20 ids (items, systems) concerned."
    )


class PreviewColumnSerializer(serializers.Serializer):
    number = serializers.IntegerField(help_text="1-based")
    name = serializers.CharField(allow_blank=True, help_text="The header's name; empty without")
    role = serializers.ChoiceField(choices=list(ROLES))


class SplittingSerializer(serializers.Serializer):
    column = serializers.CharField()
    role = serializers.ChoiceField(choices=["references", "context"])
    separator = serializers.CharField(help_text="tab, newline, |||, ||||, eos, eou, json, none")
    given = serializers.BooleanField(help_text="false: detected (the one in the most cells)")
    explanation = serializers.CharField()


class FilePreviewSerializer(serializers.Serializer):
    file = serializers.CharField()
    header = serializers.ListField(child=serializers.CharField(allow_blank=True), allow_null=True)
    rows = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField(allow_blank=True)),
        help_text="The first 5 rows.",
    )
    columns = PreviewColumnSerializer(many=True)
    sure = serializers.BooleanField()
    missing = serializers.ListField(child=serializers.CharField(), help_text="Roles not found")
    doubled = serializers.ListField(child=serializers.CharField(), help_text="Roles found twice")
    why = serializers.CharField(allow_blank=True)
    split_rows = serializers.ListField(
        child=serializers.ListField(child=serializers.JSONField()),
        help_text="The first rows as they will be read: a multi-valued cell as its values.",
    )
    separators = SplittingSerializer(many=True, help_text="How multi-valued columns are split")
    remembered = serializers.BooleanField(
        help_text="Read as the user mapped a file with the same header before"
    )


class JudgmentPreviewSerializer(serializers.Serializer):
    sure = serializers.BooleanField(help_text="Whether every file's columns are told apart")
    files = serializers.DictField(child=FilePreviewSerializer(), help_text="By file key")


class JudgmentRejectedSerializer(serializers.Serializer):
    detail = serializers.CharField()
    problems = JudgmentProblemSerializer(many=True)
    preview = JudgmentPreviewSerializer(
        required=False, help_text="When the columns could not be told apart."
    )


class ItemIdsSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    ids = serializers.ListField(child=serializers.CharField(), help_text="The first 100.")


class JudgmentReportSerializer(serializers.Serializer):
    judgments = serializers.IntegerField()
    rows = serializers.IntegerField()
    items_created = serializers.IntegerField()
    systems = serializers.ListField(child=serializers.CharField())
    warnings = serializers.IntegerField()
    items_without_references = ItemIdsSerializer(required=False)
    items_without_context = ItemIdsSerializer(required=False)
    columns = serializers.DictField(
        child=serializers.ListField(child=serializers.DictField()),
        required=False,
        help_text="By file: each column's name and the role it was read as.",
    )
    aggregated = serializers.BooleanField(
        required=False, help_text="No judge column: one row per system × item, scores averaged"
    )
    judges_per_row = serializers.DictField(
        required=False,
        allow_null=True,
        help_text="Over how many judges (column, min, max, mean), when a column says.",
    )
    embedded = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="Parts (systems, contexts, references) read from the judgments file itself.",
    )
    separators = SplittingSerializer(many=True, required=False)
    remembered = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="Files read as the owner mapped the same header before.",
    )
    problems = JudgmentProblemSerializer(many=True, help_text="Counted: one entry per kind")
    problems_not_listed = serializers.IntegerField(required=False)

    def get_fields(self):
        # "errors" names a Serializer's own property: the field is added by name here.
        fields = super().get_fields()
        fields["errors"] = serializers.IntegerField(help_text="Problems that skipped a row")
        return fields


class JudgmentSetOutputSerializer(serializers.ModelSerializer):
    dataset = dataset_slug_field()
    report = JudgmentReportSerializer(read_only=True)

    class Meta:
        model = JudgmentSet
        fields = ["id", "dataset", "name", "split", "criteria", "report", "created_at"]


MEAN_HELP = (
    "The mean of item means: per item, the mean of its judges' scores; then the mean over every "
    "item the system was judged on, with or without references (the number evaluations "
    "publish). With the same number of judges on every item, the plain mean of the judgments."
)


class JudgmentScoreSerializer(serializers.Serializer):
    criterion = serializers.CharField()
    mean = serializers.FloatField(help_text=MEAN_HELP)
    low = serializers.FloatField(help_text="The 95% bootstrap interval's low end (items resampled)")
    high = serializers.FloatField(help_text="The 95% bootstrap interval's high end")
    items = serializers.IntegerField(help_text="Items the system was judged on (this criterion)")
    judgments = serializers.IntegerField(help_text="Judgments (scores) over those items")


class JudgmentSystemSummarySerializer(serializers.Serializer):
    system = serializers.CharField()
    scores = JudgmentScoreSerializer(
        many=True, help_text="One per criterion it was judged on, in the set's order"
    )


class JudgmentIntervalSerializer(serializers.Serializer):
    level = serializers.FloatField(help_text="0.95: the 2.5th and 97.5th percentiles of the draws")
    draws = serializers.IntegerField(help_text="Resamples of the items (with replacement)")
    seed = serializers.IntegerField(help_text="The resampling's seed: the same every time")


class JudgmentCriterionAgreementSerializer(serializers.Serializer):
    criterion = serializers.CharField()
    alpha = serializers.FloatField(
        allow_null=True,
        help_text="Krippendorff's alpha (interval); null when undefined (no variation at all)",
    )
    units = serializers.IntegerField(help_text="System × item pairs judged at least twice")
    judges = serializers.IntegerField()


class JudgmentAgreementSerializer(serializers.Serializer):
    available = serializers.BooleanField(
        help_text="Whether the set holds individual judgments (some system × item judged twice)"
    )
    note = serializers.CharField(
        allow_blank=True, help_text='When not available: "individual judgments not available …"'
    )
    criteria = JudgmentCriterionAgreementSerializer(many=True, help_text="Empty when unavailable")


class JudgmentSetSummarySerializer(serializers.Serializer):
    judgment_set = serializers.IntegerField(help_text="The set's id")
    name = serializers.CharField()
    dataset = serializers.CharField(help_text="The dataset's slug")
    split = serializers.CharField()
    criteria = serializers.ListField(
        child=serializers.CharField(), help_text="In order; the first orders the systems"
    )
    items = serializers.IntegerField(help_text="Items judged, with or without references")
    judgments = serializers.IntegerField()
    interval = JudgmentIntervalSerializer()
    systems = JudgmentSystemSummarySerializer(
        many=True, help_text="Best first: by the mean on the first criterion"
    )
    agreement = JudgmentAgreementSerializer(help_text="Between the judges, per criterion")
    report = JudgmentReportSerializer(help_text="What the import counted and found")
