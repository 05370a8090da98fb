"""BM25 index and candidate choice on a corpus whose best hits are known by construction.

tests/data/mining_corpus.jsonl, for seed s1 (message "yes what a finish, that goal in the last
minute", reference "the keeper had no chance on that goal"):
  row 1, 2 — other conversations about the same thing: the candidates, row 2 first;
  row 3 — row 2's response in other case and punctuation: a duplicate;
  row 4 — the seed's own conversation by its id, row 5 — by two shared turns;
  row 6 — the seed's own reference again; rows 7–10 — other topics (row 7: pizza, for s2).
"""

import pytest

from annotate.mining.candidates import Seed, choose_candidates, same_thread, seed_query, text_key
from annotate.mining.corpus import Triple, read_triples
from annotate.mining.index import CorpusIndex, EmptyCorpus, build_index
from annotate.mining.text import is_near_duplicate, normalize, tokens
from core.lines import LineProblems
from tests.conftest import DATA

S1 = Seed(
    external_id="s1",
    context=["did you watch the match last night?"],
    message="yes what a finish, that goal in the last minute",
    responses=["the keeper had no chance on that goal"],
    existing=["the keeper had no chance on that goal"],
)
SOURCE = {"corpus": "test corpus", "corpus_id": 7, "run": 3}


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    folder = tmp_path_factory.mktemp("index") / "i"
    with (DATA / "mining_corpus.jsonl").open("rb") as raw:
        build_index(read_triples(raw, "jsonl", LineProblems()), folder)
    with CorpusIndex(folder) as opened:
        yield opened


def mine(index, seed, k=15):
    message, response = seed_query(seed)
    hits = index.search(message=message, response=response, k=3 * k + 5)
    return choose_candidates(seed, ((h, index.row(h.doc)) for h in hits), k=k, source=SOURCE)


def test_the_best_hit_shares_words_with_both_message_and_response(index):
    hits = index.search(message="any good pizza places near the station?", response="", k=5)
    assert [index.row(h.doc).line for h in hits] == [7]
    both = index.search(message="pizza near the station", response="try the pizza place", k=1)
    assert both[0].score > hits[0].score


def test_hits_are_best_first_and_ties_go_to_the_earlier_row(index):
    hits = index.search(message=S1.message, response=S1.responses[0], k=10)
    lines = [index.row(h.doc).line for h in hits]
    assert set(lines) == {1, 2, 3, 4, 5, 6}
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    assert lines.index(2) == lines.index(3) - 1  # rows 2 and 3 tie: same words, same length


def test_a_query_with_no_known_word_finds_nothing(index):
    assert index.search(message="zzz qqq", response="", k=5) == []
    assert index.search(message="", response="", k=5) == []


def test_candidates_skip_duplicates_and_the_seed_s_own_conversation(index):
    candidates = mine(index, S1)
    assert [(c.origin, c.text) for c in candidates] == [
        ("mined", "best finish of the season, keeper had no chance"),  # row 2 (row 3 a dup)
        ("mined", "that late goal was amazing, the keeper had no chance"),  # row 1
        ("parroted", S1.message),
    ]


def test_provenance_names_corpus_row_score_and_source_turns(index):
    first = mine(index, S1)[0]
    assert first.provenance == {
        "method": "bm25",
        "corpus": "test corpus",
        "corpus_id": 7,
        "run": 3,
        "row": 2,
        "score": pytest.approx(first.provenance["score"]),
        "rank": 1,
        "conversation": "x2",
        "source_context": ["football tonight"],
        "source_message": "what a goal in the last minute",
    }
    assert first.provenance["score"] > 0
    assert mine(index, S1)[-1].provenance == {"method": "parroted", "run": 3}


def test_k_limits_the_mined_candidates_not_the_parrot(index):
    assert [c.origin for c in mine(index, S1, k=1)] == ["mined", "parroted"]


def test_what_the_item_already_has_or_had_removed_is_not_added_again(index):
    first_run = mine(index, S1)
    again = Seed(**{**S1.__dict__, "existing": S1.existing + [c.text for c in first_run]})
    assert mine(index, again) == []
    removed = Seed(**{**S1.__dict__, "dismissed": frozenset({text_key(first_run[0].text)})})
    assert [c.text for c in mine(index, removed)] == [first_run[1].text, S1.message]


def test_own_conversation_by_id_or_by_two_shared_turns():
    by_id = Triple(4, [], "unrelated", "words", conversation="s1")
    by_turns = Triple(5, [S1.context[0]], S1.message.upper(), "something else")
    one_turn = Triple(6, [], S1.message, "a different reply")
    assert same_thread(S1, by_id) and same_thread(S1, by_turns)
    assert not same_thread(S1, one_turn)


def test_normalized_keys_and_near_duplicates():
    assert normalize("  Best finish!!  Keeper had NO chance ") == "best finish keeper had no chance"
    assert is_near_duplicate(
        normalize("that was the best finish of the whole season, no doubt"),
        normalize("that was the best finish of the season, no doubt"),
    )
    assert not is_near_duplicate("yes please", "no thanks")
    assert tokens("What a GOAL in the last minute") == ["goal", "last", "minute"]


def test_the_saved_index_records_its_size_and_a_corpus_without_rows_is_refused(index, tmp_path):
    assert index.meta["rows"] == len(index) == 10
    assert index.meta["bm25s"] == "0.3.16"
    with pytest.raises(EmptyCorpus):
        build_index(iter([]), tmp_path / "empty")
