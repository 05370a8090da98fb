"""The release's README.md datasheet, generated from its metadata and public content only.

Only public data goes in, so an imported copy (which never saw the hidden references)
regenerates the same text.
"""

from __future__ import annotations

from collections import Counter
from statistics import fmean
from typing import Any

from annotate.releases.models import weight_field
from annotate.releases.selectors.content import scoring_refs

HISTOGRAM_BINS = 10  # of width 0.2 over [-1, +1]
HISTOGRAM_WIDTH = 40  # characters of the longest bar


def weight_histogram(weights: list[float]) -> list[tuple[float, float, int]]:
    counts = [0] * HISTOGRAM_BINS
    for w in weights:
        counts[min(int((w + 1) / 2 * HISTOGRAM_BINS), HISTOGRAM_BINS - 1)] += 1
    step = 2 / HISTOGRAM_BINS
    return [(-1 + k * step, -1 + (k + 1) * step, n) for k, n in enumerate(counts)]


def _histogram_text(weights: list[float]) -> list[str]:
    bins = weight_histogram(weights)
    top = max((n for _, _, n in bins), default=0) or 1
    lines = ["```"]
    for low, high, n in bins:
        bar = "#" * round(HISTOGRAM_WIDTH * n / top)
        lines.append(f"[{low:+.1f}, {high:+.1f}{']' if high >= 1 else ')'} {n:>6} {bar}")
    return [*lines, "```"]


def _statistics(meta: dict[str, Any], content: list[dict[str, Any]]) -> list[str]:
    key = weight_field(meta["weight_variant"])
    lines = ["| split | items | references published | rated | mean weight | scorable items |"]
    lines.append("|---|---|---|---|---|---|")
    for split in sorted({item["split"] for item in content}):
        items = [item for item in content if item["split"] == split]
        if split not in meta["public_splits"]:
            lines.append(f"| {split} | {len(items)} | hidden | – | – | – |")
            continue
        refs = [r for item in items for r in item["refs"]]
        weights = [r[key] for r in refs if r[key] is not None]
        scorable = sum(1 for item in items if scoring_refs(item, meta["weight_variant"]))
        mean = f"{fmean(weights):+.3f}" if weights else "–"
        lines.append(
            f"| {split} | {len(items)} | {len(refs)} | {len(weights)} | {mean} | {scorable} |"
        )
    return lines


def _campaign(info: dict[str, Any]) -> list[str]:
    campaign = info.get("campaign")
    if not campaign:
        return ["No rating campaign: the release carries no weights."]
    raters, agreement = info.get("raters", {}), info.get("agreement", {})
    qc = raters.get("qc", {})
    alpha = agreement.get("krippendorff_alpha_interval")
    return [
        f"- Campaign: {campaign['name']}; scale {campaign['scale_min']}–{campaign['scale_max']}"
        f" ({', '.join(campaign['anchors'])})",
        f"- Ratings per reference: {campaign['ratings_per_unit']}, plus up to "
        f"{campaign['extra_ratings_on_disagreement']} when their SD reaches "
        f"{campaign['disagreement_sd']}",
        f"- Quality-control items mixed in: {campaign['control_rate']:.0%} (bad references"
        " and repeats)",
        f"- Raters: {raters.get('joined', 0)} joined, {raters.get('with_counted_ratings', 0)} "
        "with counted ratings",
        f"- Quality control: {qc.get('passed', 0)} passed, {qc.get('failed', 0)} failed, "
        f"{qc.get('pending', 0)} without a verdict; {raters.get('ratings_excluded_by_qc', 0)} "
        f"ratings excluded, {raters.get('ratings_counted', 0)} counted",
        "- Agreement (Krippendorff's α, interval): "
        + ("not computable" if alpha is None else f"{alpha:.3f}")
        + f" over {agreement.get('references_with_2_or_more_ratings', 0)} references rated"
        " at least twice",
    ]


def _unrated(info: dict[str, Any]) -> list[str]:
    """What became of the references the campaign had not rated (releases before this was
    recorded say nothing)."""
    unrated = info.get("unrated")
    if not unrated:
        return []
    n = unrated.get("references", 0)
    said = {
        "none": "none: every reference had at least one counted rating",
        "exclude": f"{n} excluded from this release",
        "zero": f"{n} published with weight 0 (never rated, not judged neutral)",
    }
    return [f"- References without a rating in the campaign: {said.get(unrated['choice'], n)}"]


def _sources(info: dict[str, Any]) -> list[str]:
    sources = info.get("sources", {})
    origins = ", ".join(f"{n} {o}" for o, n in sorted(sources.get("origins", {}).items()))
    lines = [f"- Candidate references by origin: {origins or 'none'}"]
    corpora = sources.get("mined_from_corpora", {})
    if corpora:
        mined = ", ".join(f"{name} ({n})" for name, n in sorted(corpora.items()))
        lines.append(f"- Mined from: {mined}")
    return lines


def datasheet_markdown(*, meta: dict[str, Any], content: list[dict[str, Any]]) -> str:
    info = meta["build_info"]
    dataset = info["dataset"]
    key = weight_field(meta["weight_variant"])
    weights = [r[key] for i in content for r in i["refs"] or [] if r[key] is not None]
    scale = f"{dataset['scale_min']}–{dataset['scale_max']}"
    excluded = Counter(
        item["split"]
        for item in content
        if item["refs"] is not None and not scoring_refs(item, meta["weight_variant"])
    )
    hidden = sorted({i["split"] for i in content} - set(meta["public_splits"]))
    lines = [
        f"# {dataset['name']} {meta['version']}",
        "",
        meta["description"] or dataset["description"] or "",
        "",
        f"Language: {dataset['language']} · License: {meta['license']} · "
        f"Published: {meta['published_at'] or 'not yet (a draft)'}",
        "",
        "## How it was built",
        "",
        *_sources(info),
        *_campaign(info),
        *_unrated(info),
        "",
        "## Weights",
        "",
        f"Each reference's weight maps its mean rating m on the scale {scale} onto [-1, +1]: "
        f"w = 2 (m − {dataset['scale_min']}) / ({dataset['scale_max']} − "
        f"{dataset['scale_min']}) − 1 (Galley et al. 2015, sec. 4); z_weight applies the same "
        "formula to per-rater z-normalised scores. Intervals are 95% bootstrap intervals. "
        f"The scoring files use the {'z-normalised' if key == 'z_weight' else 'raw'} weights.",
        "",
        "Items whose references have no positive weight cannot be scored by ΔBLEU and are left "
        "out of refs.<split>.jsonl (they stay in items.jsonl): "
        + (", ".join(f"{n} in {s}" for s, n in sorted(excluded.items())) or "none")
        + ".",
        "",
        "## Statistics",
        "",
        *_statistics(meta, content),
        "",
        "Histogram of published weights:",
        "",
        *_histogram_text(weights),
        "",
    ]
    if hidden:
        lines += [
            f"References of the {', '.join(hidden)} split(s) are hidden (for a leaderboard). "
            f"The snapshot checksum {meta['snapshot_checksum']} covers them, so they can be "
            "checked once revealed.",
            "",
        ]
    lines += ["## Files", "", "See manifest.json for each file's size and SHA-256.", ""]
    if meta["citation"]:
        lines += ["## Citation", "", "```bibtex", meta["citation"].strip(), "```", ""]
    return "\n".join(lines)
