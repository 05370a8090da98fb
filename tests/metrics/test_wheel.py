"""The metric library as users get it: its wheel built from packages/deltableu-metrics,
installed in a fresh virtual environment (numpy from the package index, no Django, no
sacrebleu, no orjson), and its `dbleu` console script run from a temporary directory on the
public test vectors (WMT17 en→de), against mteval-v13a's printed NIST and sacrebleu's BLEU."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest
import sacrebleu

from .conftest import VECTORS_DIR
from .test_nist import VECTORS

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "packages" / "deltableu-metrics"

pytestmark = pytest.mark.slow


def _run(*argv: object, cwd: Path, env: dict[str, str] | None = None, input: str | None = None):
    return subprocess.run(
        [str(a) for a in argv],
        cwd=cwd,
        env=env,
        input=input,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the venv's bin directory, a clean environment, an empty working directory)."""
    base = tmp_path_factory.mktemp("wheel")
    built = _run(
        sys.executable,
        "-m",
        "build",
        "--wheel",
        "--no-isolation",
        "--outdir",
        base / "dist",
        PACKAGE,
        cwd=base,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = (base / "dist").glob("deltableu_metrics-*.whl")
    venv.EnvBuilder(with_pip=True, clear=True).create(base / "venv")
    bin_dir = base / "venv" / "bin"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    pip = _run(bin_dir / "python", "-m", "pip", "install", "--quiet", wheel, cwd=base, env=env)
    assert pip.returncode == 0, pip.stderr[-2000:]
    work = base / "work"
    work.mkdir()
    return bin_dir, env, work


def test_the_wheel_holds_the_library_only(installed):
    bin_dir, env, work = installed
    code = (
        "import importlib.util as u, scoring.metrics as m, sys; "
        "print(m.__file__); "
        "print([n for n in ('django', 'sacrebleu', 'orjson', 'scoring.leaderboards') "
        "if u.find_spec(n) is not None])"
    )
    out = _run(bin_dir / "python", "-c", code, cwd=work, env=env)
    assert out.returncode == 0, out.stderr
    where, missing = out.stdout.splitlines()
    assert "site-packages" in where and missing == "[]"


def test_version_and_list(installed):
    bin_dir, env, work = installed
    from scoring.metrics import __version__

    out = _run(bin_dir / "dbleu", "--version", cwd=work, env=env)
    assert out.returncode == 0 and out.stdout.strip() == f"dbleu {__version__}"
    listed = _run(bin_dir / "dbleu", "list", cwd=work, env=env)
    assert listed.returncode == 0 and "dbleu: ΔBLEU" in listed.stdout


def test_the_console_script_scores_the_public_vectors(installed):
    bin_dir, env, work = installed
    vector = VECTORS[16]  # two references
    refs = [VECTORS_DIR / f for f in vector["refs_files"]]
    hyps = VECTORS_DIR / vector["hyps_file"]
    out = _run(
        bin_dir / "dbleu", *refs, "-i", hyps, "-m", "nist", "bleu", "-f", "json", cwd=work, env=env
    )
    assert out.returncode == 0, out.stderr
    nist, bleu = json.loads(out.stdout)
    assert f"{nist['score']:.4f}" == vector["mteval_nist"]
    streams = [p.read_text(encoding="utf-8").split("\n")[:-1] for p in refs]
    expected = sacrebleu.corpus_bleu(hyps.read_text(encoding="utf-8").split("\n")[:-1], streams)
    assert bleu["score"] == pytest.approx(expected.score, abs=1e-9)


def test_standard_input_index_and_a_usage_error(installed):
    bin_dir, env, work = installed
    refs = (
        '{"id": "1", "refs": [{"text": "the cat sat", "weight": 1}, '
        '{"text": "a cat", "weight": -0.5}]}\n'
    )
    (work / "h.txt").write_text("the cat sat\n", encoding="utf-8")
    direct = _run(
        bin_dir / "dbleu", "score", "--refs", "-", "--hyps", "h.txt", cwd=work, env=env, input=refs
    )
    assert direct.returncode == 0, direct.stderr
    built = _run(
        bin_dir / "dbleu", "index", "--refs", "-", "--out", "r.idx", cwd=work, env=env, input=refs
    )
    assert built.returncode == 0, built.stderr
    score_indexed = [bin_dir / "dbleu", "score", "--index", "r.idx", "-i", "h.txt"]
    indexed = _run(*score_indexed, cwd=work, env=env)
    assert indexed.stdout == direct.stdout
    bad = _run(*score_indexed, "--seed", "-1", cwd=work, env=env)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    intl = _run(*score_indexed, "--tokenize", "intl", cwd=work, env=env)
    assert intl.returncode == 1 and "needs sacrebleu" in intl.stderr
