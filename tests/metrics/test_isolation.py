"""The metric library never imports Django."""

import subprocess
import sys
from pathlib import Path


def test_importing_and_scoring_leaves_django_out():
    code = (
        "import sys, scoring.metrics as m; import scoring.metrics.cli; "
        "m.score_corpus('dbleu', ['a b'], [m.RefItem('1', (m.WeightedRef('a b'),))]); "
        "print('django' in sys.modules)"
    )
    root = Path(__file__).parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_registry_order_does_not_depend_on_import_order():
    # A fresh interpreter that imports the last metric modules first, as the study does.
    code = (
        "import scoring.metrics.amber, scoring.metrics.grr, scoring.metrics.nist; "
        "from scoring.metrics import entries; print(' '.join(entries()))"
    )
    root = Path(__file__).parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [
        "bleu", "dbleu", "sbleu", "bleu-sbp", "nist", "dnist", "4grr", "amber",
    ]  # fmt: skip
