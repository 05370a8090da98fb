"""Column roles of human-evaluation files: by name and synonym, any case, any order, with or
without a byte-order mark; the failures a real published evaluation met; when a guess is unsure."""

import pytest

from annotate.judgments.bundles import ColumnsUnsure, bundle_check, bundle_parse, judgments_preview
from annotate.judgments.columns import (
    ColumnMappingError,
    mapping_from_json,
    mapping_from_option,
    role_named,
)
from tests.judgment_parsing import parse_contexts, parse_judgments, parse_outputs

REAL_JUDGMENTS = (
    "\ufeffWorkerId\tInstanceID\tSystemID\tRelevance\tInformativeness\n"
    "W1\t101\tseq2seq\t4\t3\nW2\t101\tseq2seq\t5\t2\nW1\t101\thuman\t5\t5\n"
)
REAL_SYSTEMS = 'SystemID,InstanceID,Response\nseq2seq,101,"i don\'t know, really"\nhuman,101,sure\n'


@pytest.mark.parametrize(
    ("name", "role"),
    [
        ("SystemID", "system"), ("system_id", "system"), ("Model", "system"), ("SYS", "system"),
        ("system name", "system"), ("InstanceID", "item"), ("instance_id", "item"),
        ("Context-ID", "item"), ("sample_id", "item"), ("dialogue_id", "item"), ("ID", "item"),
        ("WorkerId", "judge"), ("worker_id", "judge"), ("Annotator", "judge"),
        ("rater_id", "judge"), ("Hypothesis", "response"), ("reply", "response"),
        ("Dialogue", "context"), ("History", "context"), ("Ref 1", "references"),
        ("reference_2", "references"), ("\ufeffid", "item"), ("Relevance", None),
    ],
)  # fmt: skip
def test_roles_are_recognised_by_name_case_and_separators_aside(name, role):
    assert role_named(name) == role


def test_the_real_evaluation_reads_as_meant():
    """SystemID is no system, the InstanceID row no item, the criteria keep their names, and
    'Relevance' is not reported as a score that is not a number."""
    judgments = parse_judgments(REAL_JUDGMENTS.encode(), "judgments.tsv")
    assert judgments.criteria == ["Relevance", "Informativeness"]
    assert {row.system for row in judgments.rows} == {"seq2seq", "human"}
    assert {row.item for row in judgments.rows} == {"101"}
    assert judgments.rows[0].scores == {"Relevance": 4.0, "Informativeness": 3.0}
    assert all(p.level == "warning" for p in judgments.problems)  # the byte-order mark only
    outputs = parse_outputs(REAL_SYSTEMS.encode(), "systems.csv")
    assert set(outputs.by_system) == {"seq2seq", "human"}
    assert outputs.by_system["seq2seq"]["101"] == "i don't know, really"


def test_columns_come_in_any_order_and_in_any_format():
    shuffled = "Informativeness,system,Relevance,annotator,item\n2,mt,4,a,c1\n"
    row = parse_judgments(shuffled.encode(), "j.csv").rows[0]
    assert (row.judge, row.item, row.system) == ("a", "c1", "mt")
    assert row.scores == {"Informativeness": 2.0, "Relevance": 4.0}
    jsonl = b'{"WorkerId": "a", "InstanceID": "c1", "model": "mt", "Relevance": 3}\n'
    assert parse_judgments(jsonl, "j.jsonl").rows[0].scores == {"Relevance": 3.0}
    contexts = parse_contexts(b"Dialogue\tdepth\tContext_ID\nhi EOS how are you\t2\tc1\n")
    assert contexts.items["c1"] == (["hi"], "how are you")


def test_a_headerless_file_in_the_documented_layout_is_sure():
    parsed = parse_judgments(b"j1\tc1\tmt\t4\t5\nj2\tc1\tmt\t3\t2\n")
    assert parsed.criteria == ["score1", "score2"] and len(parsed.rows) == 2 and not parsed.unsure


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"judge\tInstanceID\tRelevance\nj1\tc1\t4\n", "no column is the system"),
        (b"worker\tannotator\tid\tsystem\tq\nw\ta\tc1\tmt\t3\n", "several columns claim the judge"),
        (b"c1\tmt\tj1\tgood\nc2\tmt\tj1\tbad\n", "the rows do not fit judge, item, system"),
        (b"Rater#\tCtx\tSys\tRel\nr1\tc1\tmt\t4\n", "no column is the item"),
        # No judge column yet per-judge rows (the judge's column not recognised): asked.
        (
            b"Person\tid\tsystem\tRel\nr1\tc1\tmt\t4\nr2\tc1\tmt\t5\n",
            "no column is the judge, yet system 'mt' and item 'c1' come twice (lines 2 and 3)",
        ),
    ],
)
def test_an_unsure_guess_reads_nothing_and_says_what_is_missing(data, why):
    bundle = bundle_parse(judgments=("j.tsv", data))
    assert not bundle.judgments.rows
    with pytest.raises(ColumnsUnsure) as refused:
        bundle_check(bundle)
    assert why in refused.value.messages[0] and "j.tsv" in refused.value.messages[0]
    assert refused.value.preview["sure"] is False


def test_the_preview_shows_the_first_rows_and_the_guess_per_column():
    data = b"Rater#\tCtx\tSys\tRel\n" + b"".join(b"r%d\tc1\tmt\t4\n" % k for k in range(9))
    preview = judgments_preview(files={"judgments": ("j.tsv", data)})
    file = preview["files"]["judgments"]
    assert file["header"] == ["Rater#", "Ctx", "Sys", "Rel"] and len(file["rows"]) == 5
    # Words are never scores: the rater's and the context's columns are not criteria.
    assert [c["role"] for c in file["columns"]] == ["ignore", "ignore", "system", "criterion"]
    assert file["missing"] == ["item"] and not file["sure"] and not preview["sure"]


def test_a_mapping_settles_an_unsure_guess_by_name_or_number():
    data = b"Rater#\tCtx\tSys\tRel\nr1\tc1\tmt\t4\n"
    by_name = mapping_from_option(["judge=Rater#", "judgments.item=ctx"])  # names: any case
    parsed = bundle_parse(judgments=("j.tsv", data), columns=by_name).judgments
    assert (parsed.rows[0].judge, parsed.rows[0].item, parsed.criteria) == ("r1", "c1", ["Rel"])
    by_number = mapping_from_json('{"judge": 1, "item": "2"}')
    assert bundle_parse(judgments=("j.tsv", data), columns=by_number).judgments.rows


@pytest.mark.parametrize(
    ("options", "named"),
    [
        (["judg=WorkerId"], "'judg'"),
        (["judge=Nope"], "'Nope'"),
        (["judge"], "'judge'"),
        (["votes.judge=WorkerId"], "'votes'"),
        (["systems.judge=WorkerId"], "judge"),
        (["judge=9"], "'9'"),
    ],
)
def test_a_bad_mapping_names_what_is_wrong(options, named):
    with pytest.raises(ColumnMappingError) as refused:
        bundle_parse(
            judgments=("j.tsv", REAL_JUDGMENTS.encode()),
            systems=("s.csv", REAL_SYSTEMS.encode()),
            columns=mapping_from_option(options),
        )
    assert named in refused.value.messages[0] and "\n" not in refused.value.messages[0]


@pytest.mark.parametrize(
    "text", ["{", "[1, 2]", '{"judge": {"x": 1}}', '{"judge": true}', '{"judge": ""}', "1e999"]
)
def test_malformed_mapping_json_is_refused_with_a_message(text):
    with pytest.raises(ColumnMappingError) as refused:
        mapping_from_json(text)
    assert refused.value.messages[0].startswith(("columns:", "judge:", "judge"))


def test_a_very_wide_file_is_previewed_in_part():
    header = "\t".join(f"c{k}" for k in range(5000)).encode()
    preview = judgments_preview(files={"judgments": ("j.tsv", b"judge\tid\t" + header + b"\n")})
    file = preview["files"]["judgments"]
    assert len(file["columns"]) == 100 and len(file["header"]) == 100
    assert "(5002 in all)" in file["why"] and len(file["why"]) < 1000
