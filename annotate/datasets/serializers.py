from __future__ import annotations

from rest_framework import serializers

from annotate.datasets.models import Dataset, Item, Reference


def dataset_slug_field() -> serializers.SlugRelatedField:
    """A row's dataset, answered as its slug (campaigns, releases, judgments, studies)."""
    return serializers.SlugRelatedField(slug_field="slug", read_only=True)


class DatasetOutputSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)

    class Meta:
        model = Dataset
        fields = [
            "slug",
            "name",
            "description",
            "owner",
            "language",
            "scale_min",
            "scale_max",
            "visibility",
            "revealed_splits",
            "stats",
            "stats_updated_at",
            "created_at",
            "updated_at",
        ]


class DatasetInputSerializer(serializers.ModelSerializer):
    class Meta:
        model = Dataset
        fields = ["slug", "name", "description", "language", "scale_min", "scale_max", "visibility"]


class DatasetUpdateSerializer(DatasetInputSerializer):
    class Meta(DatasetInputSerializer.Meta):
        fields = ["name", "description", "language", "scale_min", "scale_max", "visibility"]


class ReferenceOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = Reference
        fields = ["id", "text", "origin", "provenance"]


class ItemOutputSerializer(serializers.ModelSerializer):
    id = serializers.CharField(source="external_id")
    split = serializers.CharField(source="split.name")
    references = ReferenceOutputSerializer(many=True)
    references_hidden = serializers.SerializerMethodField(
        help_text="True when the split's references are hidden from you (a test split until "
        "its owner reveals it); `references` is then empty."
    )

    class Meta:
        model = Item
        fields = ["id", "split", "context", "message", "references", "references_hidden"]

    def get_references_hidden(self, item: Item) -> bool:
        return item.split.name in self.context.get("hidden", ())


class ImportInputSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="JSONL or TSV, UTF-8; see the README for the layout.")
    format = serializers.ChoiceField(
        choices=["jsonl", "tsv"], required=False, help_text="Guessed from the file name if absent."
    )


class ImportOutputSerializer(serializers.Serializer):
    items = serializers.IntegerField()
    references = serializers.IntegerField()


class ProblemSerializer(serializers.Serializer):
    line = serializers.IntegerField(help_text="1-based line of the file; 0 for the whole file.")
    field = serializers.CharField()
    message = serializers.CharField()


class ImportErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    problems = ProblemSerializer(many=True)


class DoomedSerializer(serializers.Serializer):
    model = serializers.CharField(help_text="app_label.model_name, e.g. rating.rating.")
    # A field named like Field.label: DRF takes declared fields off the class, so no clash.
    label = serializers.CharField(  # type: ignore[assignment]
        help_text="The kind of row, plural (singular for one blocker), for people."
    )
    count = serializers.IntegerField()


class BlockerSerializer(DoomedSerializer):
    names = serializers.ListField(child=serializers.CharField(), help_text="The first few.")
    reason = serializers.CharField(help_text="Why it keeps the dataset, when known.")


class DeletionPreviewSerializer(serializers.Serializer):
    dataset = serializers.CharField(source="dataset.slug")
    can_delete = serializers.BooleanField()
    deletes = DoomedSerializer(
        many=True,
        source="doomed",
        help_text="Every kind of row the delete removes, the dataset itself first, with counts.",
    )
    blockers = BlockerSerializer(
        many=True, help_text="What refers to the dataset and refuses the delete; empty if none."
    )


class DeletionRefusedSerializer(DeletionPreviewSerializer):
    detail = serializers.CharField(source="refusal", help_text="The blockers, in one sentence.")
