"""A realistic synthetic human evaluation, written as the four files researchers have.

Shaped like the published evaluation that issue 17 was tried with: systems × contexts (10 ×
1,000 by default), 3 judges, criteria "Relevance" and "Informativeness", 1–4 references per
context (ragged rows), about 5% of items without any reference, one system ("human") whose
outputs are copies of one of each item's references, and header names as the field writes them
(`InstanceID`, `SystemID`, `WorkerId`, a byte-order mark on the contexts file, CSV for the
systems' responses, judgments' columns in an unusual order).

Every system has a true quality in (0, 1): a better system's outputs share more words with the
item's good references, and judges score it higher (plus noise per judge). Deterministic for a
seed; 1,000 contexts take well under a second.

    files = write_human_eval(tmp_path, seed=7, contexts=200)
    files.paths["judgments"], files.qualities["human"], files.reference_less
"""

from __future__ import annotations

import csv
import random
from dataclasses import dataclass, field
from pathlib import Path

CRITERIA = ("Relevance", "Informativeness")
HUMAN = "human"
MODEL_NAMES = (
    "seq2seq",
    "seq2seq-mmi",
    "hred",
    "vhred",
    "transformer",
    "retrieval",
    "persona",
    "copy-net",
    "lstm-attn",
    "gpt-small",
    "memnet",
    "rl-dialog",
)
TOPICS = {
    "food": "pizza dinner lunch cook pasta hungry restaurant tasty breakfast coffee",
    "work": "meeting boss office project deadline email busy report team job",
    "weather": "rain sunny cold warm snow weekend outside umbrella forecast wind",
    "music": "song band concert guitar album listen loud playlist sing radio",
    "travel": "trip flight beach hotel city train visit summer passport holiday",
}
GLUE = [
    "i",
    "you",
    "we",
    "it",
    "that",
    "this",
    "really",
    "maybe",
    "so",
    "just",
    "think",
    "like",
    "love",
    "want",
    "have",
    "got",
]
OPENERS = ("yeah", "oh", "well", "haha", "hmm", "honestly", "sure")
FILLER = ["the", "a", "to", "of", "and", "is", "was", "for", "with", "not", "but", "too", "very"]


@dataclass
class HumanEvalFiles:
    """The files written and what the test may check the import and the study against."""

    paths: dict[str, Path]  # contexts, references, systems, judgments
    systems: list[str]
    qualities: dict[str, float]  # true quality per system, the human responses' the highest
    reference_less: list[str]  # ids of the items with no reference at all
    item_ids: list[str]
    judges: list[str]
    criteria: tuple[str, ...] = CRITERIA
    header_names: dict[str, list[str]] = field(default_factory=dict)

    def import_judgments_args(self, slug: str) -> list[str]:
        """`manage.py import_judgments` of these files into the dataset `slug`."""
        options = [
            word
            for name in ("systems", "contexts", "references")
            for word in (f"--{name}", str(self.paths[name]))
        ]
        return ["import_judgments", slug, str(self.paths["judgments"]), *options]


def _sentence(rng: random.Random, topic: list[str], length: int) -> list[str]:
    words = [rng.choice(OPENERS)] if rng.random() < 0.4 else []
    while len(words) < length:
        pick = rng.random()
        pool = topic if pick < 0.45 else GLUE if pick < 0.75 else FILLER
        words.append(rng.choice(pool))
    return words


def _variant(rng: random.Random, good: list[str], topic: list[str]) -> list[str]:
    """A reference: the good response with a few words changed (people word things apart)."""
    return [w if rng.random() < 0.75 else rng.choice(topic + GLUE) for w in good]


def _output(rng: random.Random, good: list[str], quality: float, vocab: list[str]) -> list[str]:
    """A system's response: each word of the good response kept with probability `quality`,
    else a word from anywhere (off-topic), so overlap with the references follows quality."""
    return [w if rng.random() < quality else rng.choice(vocab) for w in good]


def _score(rng: random.Random, quality: float, bias: float) -> int:
    return max(1, min(5, round(1 + 4 * quality + bias + rng.gauss(0, 0.6))))


def _qualities(rng: random.Random, n_systems: int) -> dict[str, float]:
    names = list(MODEL_NAMES[: n_systems - 1])
    names += [f"system-{k}" for k in range(len(names), n_systems - 1)]
    steps = sorted(rng.uniform(0.15, 0.75) for _ in names)
    return {**dict(zip(names, steps, strict=True)), HUMAN: 0.9}


def write_human_eval(
    directory: Path,
    *,
    seed: int = 0,
    systems: int = 10,
    contexts: int = 1000,
    judges: int = 3,
    reference_less_share: float = 0.05,
) -> HumanEvalFiles:
    """Write contexts.tsv, references.tsv, systems.csv and judgments.tsv under `directory`."""
    rng = random.Random(seed)
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    qualities = _qualities(rng, systems)
    vocab = sorted({w for words in TOPICS.values() for w in words.split()} | set(GLUE))
    item_ids = [str(101 + k) for k in range(contexts)]
    no_refs = set(rng.sample(item_ids, round(contexts * reference_less_share)))
    judge_names = [f"A{rng.randrange(10**9, 10**10):X}" for _ in range(judges)]
    context_rows, ref_rows, output_rows, judgment_rows = [], [], [], []
    for item_id in item_ids:
        topic = TOPICS[rng.choice(sorted(TOPICS))].split()
        depth = rng.randint(1, 3)
        turns = [" ".join(_sentence(rng, topic, rng.randint(4, 9))) for _ in range(depth)]
        context_rows.append(f"{item_id}\t{depth}\t{' EOS '.join(turns)}")
        good = _sentence(rng, topic, rng.randint(5, 10))
        refs = (
            []
            if item_id in no_refs
            else [
                " ".join(good if k == 0 else _variant(rng, good, topic))
                for k in range(rng.randint(1, 4))
            ]
        )
        if item_id not in no_refs or int(item_id) % 2:  # some reference-less rows just the id
            ref_rows.append("\t".join([item_id, *refs]))
        for system, quality in qualities.items():
            if system == HUMAN:
                text = rng.choice(refs) if refs else " ".join(good)
            else:
                text = " ".join(_output(rng, good, quality, vocab))
            output_rows.append([system, item_id, text])
            for k, judge in enumerate(judge_names):
                bias = (k - 1) * 0.3  # a lenient and a severe judge
                scores = [_score(rng, quality, bias), _score(rng, quality * 0.9, bias)]
                judgment_rows.append(f"{item_id}\t{system}\t{judge}\t{scores[0]}\t{scores[1]}")
    headers = {
        "contexts": ["InstanceID", "Depth", "Context"],
        "references": ["InstanceID", "Ref 1", "Ref 2", "Ref 3", "Ref 4"],
        "systems": ["SystemID", "InstanceID", "Response"],
        "judgments": ["InstanceID", "SystemID", "WorkerId", *CRITERIA],
    }
    paths = {
        "contexts": directory / "contexts.tsv",
        "references": directory / "references.tsv",
        "systems": directory / "systems.csv",
        "judgments": directory / "judgments.tsv",
    }
    _write_tsv(paths["contexts"], headers["contexts"], context_rows, bom=True)
    _write_tsv(paths["references"], headers["references"], ref_rows)
    _write_tsv(paths["judgments"], headers["judgments"], judgment_rows)
    with paths["systems"].open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(headers["systems"])
        writer.writerows(output_rows)
    return HumanEvalFiles(
        paths=paths,
        systems=list(qualities),
        qualities=qualities,
        reference_less=sorted(no_refs, key=int),
        item_ids=item_ids,
        judges=judge_names,
        header_names=headers,
    )


def _write_tsv(path: Path, header: list[str], rows: list[str], *, bom: bool = False) -> None:
    text = "\n".join(["\t".join(header), *rows]) + "\n"
    path.write_text(("\ufeff" if bom else "") + text, encoding="utf-8")
