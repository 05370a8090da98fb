"""The exceptions of issue 19, each compared with its reference implementation on the input
that used to fail: control characters (sacrebleu; the Perl tokenizer's rules), sBLEU's
smoothing defaults (sacrebleu's sentence_bleu) and NIST's default (mteval-v13a's printout)."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
import sacrebleu

from scoring.metrics import RefItem, WeightedRef, build_index, compute_stats, get_metric
from scoring.metrics.tokenizers import clear_token_cache, encode, encode_nist, make_tokenizer

from .conftest import VECTORS_DIR
from .helpers import tokens_per_line
from .test_nist import VECTORS, _wmt_score

# Every control character the old joined tokenization used as a separator, the first
# private-use character (the new one's first candidate) and the information separators.
CONTROL = "".join(map(chr, [*range(1, 9), 0x0E, 0x0F]))
HOSTILE = CONTROL + "\ue000\x1c\x1d\x1e\x1f"


def _corpus(seed: int = 0, n: int = 40) -> tuple[list[str], list[list[str]]]:
    rng = np.random.default_rng(seed)
    words = ["a", "b", "c", "d.", "e,", "x1", "1-2", "&amp;", *HOSTILE, "a\x03b", "c\x1cd"]

    def line() -> str:
        return " ".join(words[int(k)] for k in rng.integers(0, len(words), rng.integers(0, 12)))

    hyps = [line() for _ in range(n)]
    streams = [[line() for _ in range(n)] for _ in range(3)]
    hyps[0] += " " + HOSTILE  # the corpus holds every one of them
    return hyps, streams


def _items(streams: list[list[str]]) -> list[RefItem]:
    return [
        RefItem(str(i), tuple(WeightedRef(s[i]) for s in streams)) for i in range(len(streams[0]))
    ]


@pytest.mark.parametrize("tokenize", ["13a", "none", "char", "intl"])
def test_control_characters_bleu_equals_sacrebleu_direct_and_indexed(tokenize):
    hyps, streams = _corpus()
    items = _items(streams)
    expected = sacrebleu.corpus_bleu(hyps, streams, tokenize=tokenize).score
    for name in ("bleu", "dbleu"):
        metric = get_metric(name, tokenize=tokenize)
        clear_token_cache()
        direct = metric.result(compute_stats(metric, hyps, items=items).sum(0)).score
        clear_token_cache()
        index = build_index(metric, items)
        indexed = metric.result(compute_stats(metric, hyps, index=index).sum(0)).score
        assert direct == pytest.approx(expected, abs=1e-9)
        assert indexed == direct


def test_control_characters_nist_direct_equals_indexed():
    hyps, streams = _corpus(1)
    items = _items(streams)
    for name in ("nist", "dnist", "4grr", "amber"):
        metric = get_metric(name)
        clear_token_cache()
        direct = compute_stats(metric, hyps, items=items)
        clear_token_cache()
        indexed = compute_stats(metric, hyps, index=build_index(metric, items))
        np.testing.assert_array_equal(direct, indexed)


def test_encode_is_exact_when_every_separator_candidate_is_taken(monkeypatch):
    from scoring.metrics import tokenizers

    lines = ["a \ue000 b", "c \ue001", "\ue000\ue001 d"]
    monkeypatch.setattr(tokenizers, "_SEPARATOR_RANGES", (range(0xE000, 0xE002),))
    for name in ("13a", "none"):
        segs, vocab = encode(lines, name, False)
        expected = [sacrebleu.BLEU(tokenize=name).tokenizer(x).split() for x in lines]
        assert tokens_per_line(segs, vocab) == expected


# mteval-v13a's `tokenization` (the default, non-international one), rule for rule, reading
# UTF-8 as mteval does (binmode :utf8); `$preserve_case` is mteval's -c.
PERL_13A = r"""
use utf8; binmode STDIN, ':utf8'; binmode STDOUT, ':utf8';
my $preserve_case = $ARGV[0];
while (my $norm_text = <STDIN>) {
    chomp $norm_text;
    $norm_text =~ s/<skipped>//g;
    $norm_text =~ s/-\n//g;
    $norm_text =~ s/\n/ /g;
    $norm_text =~ s/&quot;/"/g;
    $norm_text =~ s/&amp;/&/g;
    $norm_text =~ s/&lt;/</g;
    $norm_text =~ s/&gt;/>/g;
    $norm_text = " $norm_text ";
    $norm_text =~ tr/[A-Z]/[a-z]/ unless $preserve_case;
    $norm_text =~ s/([\{-\~\[-\` -\&\(-\+\:-\@\/])/ $1 /g;
    $norm_text =~ s/([^0-9])([\.,])/$1 $2 /g;
    $norm_text =~ s/([\.,])([^0-9])/ $1 $2/g;
    $norm_text =~ s/([0-9])(-)/$1 $2 /g;
    $norm_text =~ s/\s+/ /g;
    $norm_text =~ s/^\s+//;
    $norm_text =~ s/\s+$//;
    print join("\x{E100}", split(/\s+/, $norm_text)), "\n";
}
"""

PERL_LINES = [
    "a\x1cb c\x1dd",
    "x \x1e y\x1f.",
    "Word\x1c, Other\x1f",
    "tab\there\u00a0nbsp\u2003em\u3000ideo",
    "A&amp;B\x1c1-2 3,4",
    HOSTILE,
]


@pytest.mark.skipif(shutil.which("perl") is None, reason="needs perl")
@pytest.mark.parametrize(("tokenize", "preserve"), [("13a", "1"), ("mteval", "")])
def test_nist_tokenization_follows_the_perl_rules_for_control_characters(tokenize, preserve):
    run = subprocess.run(
        ["perl", "-e", PERL_13A, preserve],
        input="\n".join(PERL_LINES) + "\n",
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
    )
    expected = [line.split("\ue100") if line else [] for line in run.stdout.split("\n")[:-1]]
    assert any("\x1c" in w for words in expected for w in words)  # Perl keeps them in words
    clear_token_cache()
    tok = make_tokenizer(tokenize, False)
    assert [tok(line) for line in PERL_LINES] == expected
    segs, vocab = encode_nist(PERL_LINES, tokenize, False)
    assert tokens_per_line(segs, vocab) == expected


def test_bleu_keeps_sacrebleu_whitespace_for_control_characters():
    segs, vocab = encode(PERL_LINES, "13a", False)
    expected = [sacrebleu.BLEU(tokenize="13a").tokenizer(x.rstrip()).split() for x in PERL_LINES]
    assert tokens_per_line(segs, vocab) == expected


SBLEU_HYPS = ["the cat sat", "a dog", "nothing matches here", "", "the cat sat on the mat"]
SBLEU_REFS = [["the cat sat on the mat", "a cat sat"], ["the dog"], ["x y"], ["a"], ["the mat"]]


@pytest.mark.parametrize(
    ("method", "value"),
    [("floor", None), ("floor", 0.3), ("add-k", None), ("add-k", 2.0), ("exp", None)],
)
def test_sbleu_smoothing_defaults_are_sacrebleus(method, value):
    expected = np.mean(
        [
            sacrebleu.sentence_bleu(h, r, smooth_method=method, smooth_value=value).score
            for h, r in zip(SBLEU_HYPS, SBLEU_REFS, strict=True)
        ]
    )
    items = [RefItem(str(i), tuple(map(WeightedRef, r))) for i, r in enumerate(SBLEU_REFS)]
    metric = get_metric("sbleu", smooth=method, smooth_value=value)
    got = metric.result(compute_stats(metric, SBLEU_HYPS, items=items).sum(0)).score
    assert got == pytest.approx(expected, abs=1e-9)


def test_sbleu_floor_signature_shows_sacrebleus_floor():
    assert "smooth:floor[0.10]" in get_metric("sbleu", smooth="floor").signature(1)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -0.5])
def test_smooth_value_must_be_a_finite_non_negative_number(value):
    from scoring.metrics import MetricInputError

    with pytest.raises(MetricInputError, match="smooth_value"):
        get_metric("sbleu", smooth_value=value)


@pytest.mark.parametrize("vector", [VECTORS[0], VECTORS[16]], ids=lambda v: v["name"])
def test_default_nist_is_the_score_mteval_prints(vector):
    streams = [
        (VECTORS_DIR / f).read_text(encoding="utf-8").split("\n")[:-1] for f in vector["refs_files"]
    ]
    hyps = (VECTORS_DIR / vector["hyps_file"]).read_text(encoding="utf-8").split("\n")[:-1]
    metric = get_metric("nist")  # the defaults
    score = metric.result(compute_stats(metric, hyps, items=_items(streams)).sum(0)).score
    assert f"{score:.4f}" == vector["mteval_nist"]
    assert score == _wmt_score(vector, compat=True)
