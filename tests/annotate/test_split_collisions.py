"""An item id names one conversation in one split: an id in both dev and test is refused."""

import json

import pytest

from annotate.datasets.formats import FileProblems
from annotate.datasets.models import Item
from annotate.datasets.selectors.collisions import (
    collisions_in,
    split_collision_message,
    split_collisions,
)
from annotate.datasets.services.datasets import dataset_import_file
from annotate.judgments.services.importing import JudgmentsRejected, bundle_parse, judgments_import

pytestmark = pytest.mark.django_db


def jsonl(*rows: tuple[str, str]) -> list[bytes]:
    row = {"message": "m", "references": [{"text": "r"}]}
    return [(json.dumps({"id": i, "split": s, **row}) + "\n").encode() for i, s in rows]


def refusal(dataset, lines) -> FileProblems:
    with pytest.raises(FileProblems) as caught:
        dataset_import_file(dataset=dataset, lines=lines, fmt="jsonl")
    return caught.value


def test_an_id_in_both_splits_of_one_file_is_refused_with_its_line(make_dataset):
    dataset = make_dataset(data=None)
    problems = refusal(dataset, jsonl(("a", "dev"), ("b", "dev"), ("a", "test"))).problems
    assert [(p.line, p.field) for p in problems] == [(3, "id")]
    assert "1 item id would be in both the dev and test splits: 'a' (line 3)" in problems[0].message
    assert not Item.objects.exists()


def test_an_id_the_other_split_already_has_is_refused(make_dataset):
    dataset = make_dataset()  # c1 and c3 in dev, c2 in test
    problems = refusal(dataset, jsonl(("new", "dev"), ("c1", "test"), ("c2", "dev"))).problems
    assert problems[0].line == 2
    assert "2 item ids would be in both the dev and test splits" in problems[0].message
    assert "'c1' (line 2), 'c2' (line 3)" in problems[0].message
    assert Item.objects.filter(split__dataset=dataset).count() == 3


def test_many_collisions_are_named_first_few_and_counted(make_dataset):
    dataset = make_dataset(data=None)
    rows = [(f"x{k}", "dev") for k in range(12)] + [(f"x{k}", "test") for k in range(12)]
    message = refusal(dataset, jsonl(*rows)).problems[0].message
    assert message.startswith(
        "12 item ids would be in both the dev and test splits: 'x0' (line 13),"
    )
    assert "'x4' (line 17) and 7 more." in message


def test_the_same_id_in_one_split_is_still_a_duplicate_not_a_collision(make_dataset):
    dataset = make_dataset(data=None)
    problems = refusal(dataset, jsonl(("a", "dev"), ("a", "dev"))).problems
    assert [p.message for p in problems] == ["'a' already used on line 1"]


def test_the_selector_other_importers_call(make_dataset):
    dataset = make_dataset()
    found = split_collisions(dataset=dataset, split="test", external_ids=["c3", "zz", "c2", "c1"])
    assert found == {"c3": "dev", "c1": "dev"}
    assert split_collisions(dataset=dataset, split="dev", external_ids=["c1", "c3"]) == {}
    assert split_collision_message(found, split="test") == (
        "2 item ids would be in both the dev and test splits: 'c3', 'c1'. "
        "An item id names one conversation in one split; rename or drop these."
    )


def test_collisions_from_items_already_read_name_the_first_other_split():
    held = {"a": {"dev"}, "b": {"test", "extra", "dev"}, "c": {"test"}}
    assert collisions_in(held, split="test", external_ids=["c", "b", "a", "b", "zz"]) == {
        "b": "dev",
        "a": "dev",
    }
    assert collisions_in(held, split="dev", external_ids=["a"]) == {}


def test_an_import_refuses_ids_the_dataset_holds_in_another_split_and_writes_nothing(
    make_dataset,
):
    dataset = make_dataset(data=None)
    dataset_import_file(dataset=dataset, lines=jsonl(("a", "dev"), ("b", "test")), fmt="jsonl")
    problems = refusal(dataset, jsonl(("x", "dev"), ("b", "dev"), ("a", "test"))).problems
    assert [(p.line, p.field) for p in problems] == [(2, "id")]
    assert "'b' (line 2), 'a' (line 3)" in problems[0].message
    assert Item.objects.filter(split__dataset=dataset).count() == 2


def test_judgments_on_ids_the_dataset_has_in_the_other_split_are_refused(owner, make_dataset):
    dataset = make_dataset(slug="clash")  # small.jsonl: its items are on the dev split
    dev_id = dataset.splits.get(name="dev").items.first().external_id
    line = json.dumps({"judge": "j", "id": dev_id, "system": "s", "scores": {"q": 3}})
    bundle = bundle_parse(judgments=("j.jsonl", line.encode()))
    with pytest.raises(JudgmentsRejected, match=dev_id):
        judgments_import(dataset=dataset, owner=owner, name="x", split="test", bundle=bundle)
    assert not dataset.judgment_sets.exists()
