"""A dataset with three items and two evaluated systems' outputs, and campaigns on them."""

from annotate.judgments.models import EvalSystem
from annotate.judgments.services.importing import bundle_parse, judgments_import
from annotate.rating.models import Campaign, Subject
from annotate.rating.services.campaigns import campaign_create
from tests.annotate.test_human_eval import CONTEXTS, JUDGMENTS, SYSTEMS


def output_eval_dataset(make_dataset, owner, slug="he"):
    dataset = make_dataset(slug=slug, data=None)
    bundle = bundle_parse(
        judgments=("j.tsv", JUDGMENTS.encode()),
        systems=("s.tsv", SYSTEMS.encode()),
        contexts=("c.tsv", CONTEXTS.encode()),
    )
    judgments_import(dataset=dataset, owner=owner, name="x", split="test", bundle=bundle)
    return dataset, list(EvalSystem.objects.filter(dataset=dataset, name__in=["mt", "rnn"]))


def output_campaign(dataset, owner, systems, mode="likert", **fields) -> Campaign:
    """A campaign on the systems' test outputs (one rating per unit unless told)."""
    fields.setdefault("ratings_per_unit", 1)
    return campaign_create(
        owner=owner,
        dataset=dataset,
        name=fields.pop("name", mode),
        subject=Subject.OUTPUTS,
        mode=mode,
        systems=systems,
        split=dataset.splits.get(name="test"),
        **fields,
    )
