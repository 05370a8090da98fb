"""The metric library never imports Django."""

import subprocess
import sys
from pathlib import Path


def _fresh_interpreter_output(code: str) -> str:
    """What ``code`` prints in a new Python process (nothing imported yet) run from the root."""
    root = Path(__file__).parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_importing_and_scoring_leaves_django_out():
    code = (
        "import sys, scoring.metrics as m; import scoring.metrics.cli; "
        "m.score_corpus('dbleu', ['a b'], [m.RefItem('1', (m.WeightedRef('a b'),))]); "
        "print('django' in sys.modules)"
    )
    assert _fresh_interpreter_output(code).strip() == "False"


def test_registry_order_does_not_depend_on_import_order():
    # A fresh interpreter that imports the last metric modules first, as the study does.
    code = (
        "import scoring.metrics.amber, scoring.metrics.grr, scoring.metrics.nist; "
        "from scoring.metrics import entries; print(' '.join(entries()))"
    )
    assert _fresh_interpreter_output(code).split() == [
        "bleu",
        "dbleu",
        "sbleu",
        "bleu-sbp",
        "nist",
        "dnist",
        "4grr",
        "amber",
    ]
