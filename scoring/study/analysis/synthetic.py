"""Synthetic study data with a known answer: systems of known quality, rated references whose
weights are informative, and human ratings that follow the systems' quality.

Each item has a pool of "on-topic" words and a pool of "off-topic" words. The original and the
positively weighted references are drawn from the on-topic pool, negatively weighted ones from
the off-topic pool. A system of quality q writes, per item, an output whose words come from the
on-topic pool with probability q (otherwise from the off-topic pool); humans rate an output by
its share of on-topic words plus noise. Plain BLEU over all references rewards overlap with any
reference, ΔBLEU penalises overlap with the bad ones, so ΔBLEU should correlate better.

Criteria after the first rate a mix of the on-topic share and the output's length (a stand-in
for "informativeness"). With `copy_system`, one more system ("human") answers every item with
its original reference, spaced differently (the same tokens, so BLEU finds a perfect match,
but only a normalised comparison finds the copy), and is rated as fully on-topic — the case
for `loo` (leave one out).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .data import StudyData, StudyRef

VOCAB = 5000


@dataclass(frozen=True)
class SyntheticSpec:
    n_items: int = 200
    qualities: tuple[float, ...] = (0.2, 0.35, 0.5, 0.6, 0.7, 0.8, 0.9)
    n_pairs: int = 12
    good_refs: int = 5
    bad_refs: int = 5
    judges: int = 3
    seed: int = 7
    criteria: tuple[str, ...] = ("quality",)
    copy_system: bool = False
    # Per item, how many references besides the original (half good, half bad, the odd one
    # good); None keeps `good_refs` + `bad_refs` everywhere. A real corpus's counts are
    # heavy-tailed (DSTC7 Task 2: tens for most items, ~1,000 for one), which is what makes
    # per-item statistics slow.
    ref_counts: tuple[int, ...] | None = None
    output_words: tuple[int, int] = (4, 12)  # [low, high) words per output


def _sentence(rng: np.random.Generator, pool: np.ndarray, length: int) -> str:
    return " ".join(f"w{w}" for w in rng.choice(pool, size=length))


def _output(
    rng: np.random.Generator, good: np.ndarray, bad: np.ndarray, q: float, span: tuple[int, int]
) -> tuple:
    length = int(rng.integers(*span))
    on_topic = rng.random(length) < q
    words = np.where(on_topic, rng.choice(good, size=length), rng.choice(bad, size=length))
    return " ".join(f"w{w}" for w in words), float(on_topic.mean())


def _pairs(n_systems: int, n_pairs: int) -> list[tuple[int, int]]:
    every = [(a, b) for a in range(n_systems) for b in range(a + 1, n_systems)]
    # Neighbours first (close systems are the hard, interesting comparisons), then the rest.
    every.sort(key=lambda p: (p[1] - p[0], p))
    return every[:n_pairs]


def _ratings(rng: np.random.Generator, score: np.ndarray, judges: int) -> np.ndarray:
    """Per-item mean of `judges` 1–5 ratings of outputs whose true quality is `score` (0–1)."""
    noise = rng.normal(0, 1.0, (*score.shape, judges))
    return np.clip(np.rint(1 + 4 * score[:, :, None] + noise), 1, 5).mean(axis=2)


def _copy(text: str) -> str:
    return " " + text.replace(" ", "  ", 1)


def synthetic_study(spec: SyntheticSpec = SyntheticSpec()) -> StudyData:
    """Items, references, outputs of `len(spec.qualities)` systems (one more with
    `copy_system`) and human differences per criterion; per-system scores for each criterion."""
    rng = np.random.default_rng(spec.seed)
    names = [f"sys{k}" for k in range(len(spec.qualities))]
    refs: list[list[StudyRef]] = []
    outputs: dict[str, list[str | None]] = {n: [] for n in names}
    quality = np.zeros((len(names), spec.n_items))
    length = np.zeros((len(names), spec.n_items))
    for i in range(spec.n_items):
        topic = rng.choice(VOCAB, size=40, replace=False)
        good, bad = topic[:20], topic[20:]
        item_refs = [StudyRef(_sentence(rng, good, int(rng.integers(5, 12))), 0.8, True)]
        n_good, n_bad = spec.good_refs, spec.bad_refs
        if spec.ref_counts is not None:
            n_bad = spec.ref_counts[i] // 2
            n_good = spec.ref_counts[i] - n_bad
        for _ in range(n_good):
            weight = round(float(rng.uniform(0.2, 1.0)), 2)
            item_refs.append(StudyRef(_sentence(rng, good, int(rng.integers(5, 12))), weight))
        for _ in range(n_bad):
            weight = round(float(rng.uniform(-1.0, -0.2)), 2)
            item_refs.append(StudyRef(_sentence(rng, bad, int(rng.integers(5, 12))), weight))
        refs.append(item_refs)
        for s, (name, q) in enumerate(zip(names, spec.qualities, strict=True)):
            text, share = _output(rng, good, bad, q, spec.output_words)
            outputs[name].append(text)
            quality[s, i] = share
            low, high = spec.output_words
            length[s, i] = (len(text.split()) - low) / (high - 1 - low)
    if spec.copy_system:
        names.append("human")
        outputs["human"] = [_copy(item_refs[0].text) for item_refs in refs]
        quality = np.vstack([quality, np.ones(spec.n_items)])
        length = np.vstack([length, np.full(spec.n_items, 0.5)])
    pairs = [(names[a], names[b]) for a, b in _pairs(len(names), spec.n_pairs)]
    human, system_scores = {}, {}
    for c, criterion in enumerate(spec.criteria):
        truth = quality if c == 0 else 0.5 * quality + 0.5 * length
        ratings = _ratings(rng, truth, spec.judges)
        system_scores[criterion] = {n: ratings[k] for k, n in enumerate(names)}
        human[criterion] = {
            (a, b): ratings[names.index(a)] - ratings[names.index(b)] for a, b in pairs
        }
    item_ids = [f"i{i}" for i in range(spec.n_items)]
    return StudyData(item_ids, refs, outputs, pairs, human, system_scores=system_scores)
