"""The command line's output: one sacrebleu-style line per score, a significance table of
several systems (text or LaTeX), or JSON. Results are plain dicts (see :mod:`.cli`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

Result = dict[str, Any]
TESTS = (("p_value_bs", "paired bootstrap", "BS"), ("p_value_ar", "approx. randomization", "AR"))
ALPHA = 0.05


def score_line(label: str, res: Result) -> str:
    """``[label: ]signature = score precisions (BP …) [95% CI …] (p = …)``."""
    line = f"{res['signature']} = {res['score']:.2f}"
    if "precisions" in res:
        prec = "/".join(f"{p:.1f}" for p in res["precisions"])
        line += f" {prec} (BP = {res['bp']:.3f} ratio = {res.get('ratio', 0):.3f} "
        line += f"hyp_len = {res['sys_len']} ref_len = {res['ref_len']})"
    if "ci_low" in res:
        line += f" [95% CI {res['ci_low']:.2f}, {res['ci_high']:.2f}]"
    if res.get("p_value") is not None:
        line += f" (p = {res['p_value']:.4f})"
    return f"{label}: {line}" if label else line


def _by_metric(results: Sequence[Result]) -> dict[str, list[Result]]:
    groups: dict[str, list[Result]] = {}
    for res in results:
        groups.setdefault(res["metric"], []).append(res)
    return groups


def _tests_run(rows: Sequence[Result]) -> list[tuple[str, str, str]]:
    return [t for t in TESTS if any(t[0] in r for r in rows)]


def _p_text(res: Result, key: str) -> str:
    if res.get(key) is None:
        return "baseline"
    return f"{res[key]:.4f}{' *' if res[key] < ALPHA else ''}"


def text_table(results: Sequence[Result], settings: str) -> str:
    """A significance table per metric: systems, scores, intervals and p-values."""
    blocks = []
    for rows in _by_metric(results).values():
        tests = _tests_run(rows)
        head = ["system", "score"] + (["95% CI"] if "ci_low" in rows[0] else [])
        head += [f"p ({name})" for _, name, _ in tests]
        body = []
        for res in rows:
            cells = [res["hyps"], f"{res['score']:.2f}"]
            if "ci_low" in res:
                cells.append(f"[{res['ci_low']:.2f}, {res['ci_high']:.2f}]")
            cells += [_p_text(res, key) for key, _, _ in tests]
            body.append(cells)
        widths = [max(len(r[k]) for r in [head, *body]) for k in range(len(head))]
        lines = [rows[0]["display_name"] + ": " + rows[0]["signature"]]
        for cells in [head, *body]:
            lines.append("  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip())
        blocks.append("\n".join(lines))
    note = f"* p < {ALPHA} against the baseline (the first system); {settings}"
    return "\n\n".join(blocks) + "\n" + note


_LATEX_SPECIAL = {c: "\\" + c for c in "&%$#_{}"} | {
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\\": r"\textbackslash{}",
}


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped."""
    return "".join(_LATEX_SPECIAL.get(c, c) for c in text)


def _latex_name(display: str) -> str:
    return latex_escape(display).replace("Δ", r"$\Delta$")


def latex_table(results: Sequence[Result], settings: str) -> str:
    """A booktabs ``tabular`` per metric, its signature in a comment and the caption text."""
    blocks = []
    for rows in _by_metric(results).values():
        tests = _tests_run(rows)
        ci = "ci_low" in rows[0]
        cols = "l" + "r" * (1 + ci + len(tests))
        head = ["System", _latex_name(rows[0]["display_name"])] + (["95\\% CI"] if ci else [])
        head += [f"$p_\\mathrm{{{short}}}$" for _, _, short in tests]
        lines = [
            f"% {rows[0]['signature']}",
            f"% {latex_escape(settings)}",
            f"\\begin{{tabular}}{{{cols}}}",
            "\\toprule",
            " & ".join(head) + " \\\\",
            "\\midrule",
        ]
        for res in rows:
            star = any(res.get(k) is not None and res[k] < ALPHA for k, _, _ in tests)
            cells = [latex_escape(res["hyps"]), f"{res['score']:.2f}" + ("$^{*}$" if star else "")]
            if ci:
                cells.append(f"[{res['ci_low']:.2f}, {res['ci_high']:.2f}]")
            cells += ["--" if res.get(k) is None else f"{res[k]:.4f}" for k, _, _ in tests]
            lines.append(" & ".join(cells) + " \\\\")
        lines += ["\\bottomrule", "\\end{tabular}"]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def as_json(results: Sequence[Result]) -> str:
    """One object for one score, else a list (the documented JSON contract)."""
    clean = [{k: v for k, v in r.items() if k != "display_name"} for r in results]
    payload: Any = clean[0] if len(clean) == 1 else clean
    return json.dumps(payload, ensure_ascii=False, indent=1)
