"""A Vega-Lite figure as SVG, drawn by the vendored Vega and Vega-Lite (the charts' library)
under Node.js: the benchmarks' figures for the docs. Not a benchmark of its own."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

VENDOR = Path(__file__).resolve().parents[1] / "static" / "vendor" / "vega"
RENDER = (
    'const fs=require("fs"),vm=require("vm");globalThis.module=globalThis.exports=undefined;'
    'for(const f of["vega.min.js","vega-lite.min.js"])vm.runInThisContext('
    'fs.readFileSync(process.argv[1]+"/"+f,"utf8"),{filename:f});'
    "const s=JSON.parse(fs.readFileSync(0,'utf8'));"
    "new vega.View(vega.parse(vegaLite.compile(s).spec),{renderer:'none'}).toSVG()"
    ".then(x=>process.stdout.write(x));"
)


def write_svg(spec: dict, path: Path) -> None:
    """Render the Vega-Lite ``spec`` to ``path``."""
    svg = subprocess.run(
        ["node", "-e", RENDER, str(VENDOR)],
        input=json.dumps(spec),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    path.write_text(svg)
