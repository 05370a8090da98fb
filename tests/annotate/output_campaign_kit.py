"""A dataset with three items and two evaluated systems' outputs, for output campaign tests."""

from annotate.models import EvalSystem
from annotate.services.human_eval.importing import bundle_parse, judgments_import
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
