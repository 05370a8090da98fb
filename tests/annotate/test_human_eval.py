"""Human evaluation of outputs: tolerant parsing of real-world files, import, campaigns."""

import pytest
from django.core.management import call_command

from annotate.judgments.models import EvalSystem, Judgment, SystemOutput
from annotate.judgments.services.importing import bundle_parse, judgments_import
from annotate.rating.models import Rating, Slot
from annotate.rating.services.assignment import rating_next
from annotate.rating.services.campaigns import campaign_join
from annotate.rating.services.ratings import preference_for_a, rating_submit
from tests.judgment_parsing import parse_judgments, parse_outputs, parse_references

CONTEXTS = (
    "\ufeffid\tdepth\tcontext\nc1\t2\thi there EOS how are you?\nc2\t1\twhat's up\nc3\t1\tbye\n"
)
REFERENCES = 'c1\tfine thanks\tgood, you?\tnot bad "really"\nc2\tnothing much\nc3\n'
SYSTEMS = (
    "system\tid\tresponse\nmt\tc1\ti am fine\nmt\tc2\tnot much\n"
    'rnn\tc1\tgood\nrnn\tc2\tok "sure\nbroken-line\n'
)
JUDGMENTS = (
    "judge\tid\tsystem\trelevance\tfluency\n"
    "j1\tc1\tmt\t4\t5\nj2\tc1\tmt\t5\t4\nj1\tc1\trnn\t2\t3\n"
    "j1\tc2\trnn\t3\n"  # one score short
    "j1\tc2\tghost\t3\t3\n"  # a judged system with no outputs
    "j1\tc9\tmt\tx\t1\n"  # not a number
    "j1\n"  # too few columns
)


def test_parsers_survive_real_world_files():
    refs = parse_references(REFERENCES.encode())
    assert refs.items["c1"][2] == 'not bad "really"'
    assert any("no references" in p.message and p.line == 3 for p in refs.problems)
    outputs = parse_outputs(("\ufeff" + SYSTEMS).encode())
    assert outputs.by_system["rnn"]["c2"] == 'ok "sure'
    assert any(p.line == 6 and p.level == "error" for p in outputs.problems)
    parsed = parse_judgments(JUDGMENTS.encode())
    assert parsed.criteria == ["relevance", "fluency"]
    assert len(parsed.rows) == 5
    assert {p.line for p in parsed.problems} == {5, 7, 8}


def test_csv_and_jsonl_judgments():
    csv = parse_judgments(b'judge,id,system,score\nj1,c1,mt,"4"\nj2,c1,mt,3\n', "j.csv")
    assert [r.scores["score"] for r in csv.rows] == [4.0, 3.0]
    jsonl = parse_judgments(
        b'{"judge": "a", "id": "c1", "system": "mt", "scores": {"q": 2}}\n{bad\n'
    )
    assert jsonl.rows[0].scores == {"q": 2.0} and jsonl.problems[0].line == 2


@pytest.mark.django_db
def test_bundle_import_reports_and_keeps_going(make_dataset, owner):
    dataset = make_dataset(slug="he", data=None)
    bundle = bundle_parse(
        judgments=("judgments.tsv", JUDGMENTS.encode()),
        systems=("systems.tsv", SYSTEMS.encode()),
        contexts=("contexts.tsv", CONTEXTS.encode()),
        references=("refs.tsv", REFERENCES.encode()),
    )
    imported = judgments_import(
        dataset=dataset, owner=owner, name="paper", split="test", bundle=bundle
    )
    report = imported.report
    assert report["items_created"] == 3 and report["rows"] == 5
    messages = " | ".join(p["message"] for p in report["problems"])
    assert "judged system 'ghost' has no outputs" in messages
    assert "item 'c3' has no references" in messages
    assert "byte-order mark removed" in messages
    assert Judgment.objects.filter(judgment_set=imported).count() == 9
    assert SystemOutput.objects.filter(system__name="mt", item__isnull=False).count() == 2
    assert EvalSystem.objects.filter(dataset=dataset, name="ghost").exists()


@pytest.mark.django_db
def test_import_command(make_dataset, tmp_path, capsys):
    make_dataset(slug="he", data=None)
    (tmp_path / "j.tsv").write_text(JUDGMENTS)
    (tmp_path / "s.tsv").write_text(SYSTEMS)
    call_command(
        "import_judgments", "he", str(tmp_path / "j.tsv"), "--systems", str(tmp_path / "s.tsv")
    )
    out = capsys.readouterr()
    assert "Imported 9 judgments" in out.out
    assert "j.tsv, line 8" in out.err


def test_pairwise_preference_follows_the_side_shown():
    assert preference_for_a(1, a_on_left=True) == 2
    assert preference_for_a(1, a_on_left=False) == -2
    assert preference_for_a(3, a_on_left=False) == 0


@pytest.mark.django_db
def test_pairwise_campaign_leases_and_records_order(make_dataset, owner, make_rater):
    from tests.annotate.output_campaign_kit import output_campaign, output_eval_dataset

    dataset, systems = output_eval_dataset(make_dataset, owner)
    campaign = output_campaign(dataset, owner, systems, mode="pairwise", control_rate=0)
    assert campaign.slots.count() == 2
    rater = make_rater()
    campaign_join(campaign=campaign, rater=rater)
    first = rating_next(campaign=campaign, rater=rater)
    assert rating_next(campaign=campaign, rater=rater) == first  # the same lease
    done = rating_submit(rating_id=first.pk, rater=rater, score=1)
    assert done.preference == (2 if done.a_on_left else -2)
    second = rating_next(campaign=campaign, rater=rater)
    assert second.slot_id != first.slot_id
    rating_submit(rating_id=second.pk, rater=rater, score=3)
    assert rating_next(campaign=campaign, rater=rater) is None
    assert Rating.objects.filter(campaign=campaign, status="done").count() == 2


@pytest.mark.django_db(transaction=True)
def test_a_likert_slot_cannot_be_created_twice(make_dataset, owner):
    """system_b is NULL for a Likert slot: a plain unique constraint would let it repeat."""
    from django.db import IntegrityError, transaction

    from tests.annotate.output_campaign_kit import output_campaign, output_eval_dataset

    dataset, systems = output_eval_dataset(make_dataset, owner)
    campaign = output_campaign(dataset, owner, systems)
    slot = campaign.slots.filter(system_b__isnull=True).first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Slot.objects.create(campaign=campaign, item=slot.item, system_a=slot.system_a, wanted=1)
    pair = {"campaign": campaign, "item": slot.item, "system_a": systems[0], "wanted": 1}
    Slot.objects.create(system_b=systems[1], **pair)
    with pytest.raises(IntegrityError), transaction.atomic():
        Slot.objects.create(system_b=systems[1], **pair)
    # A slot rates a reference or outputs, never both and never neither.
    with pytest.raises(IntegrityError), transaction.atomic():
        Slot.objects.create(campaign=campaign, item=slot.item, wanted=1)
