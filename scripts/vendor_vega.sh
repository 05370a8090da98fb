#!/usr/bin/env bash
# Vendors the browser bundles of Vega, Vega-Lite and vega-embed into static/vendor/vega/, so
# that the charts load from our own static files (no CDN, no npm at run time). Run by hand to
# upgrade: `bash scripts/vendor_vega.sh`, then commit static/vendor/vega/. Needs npm.
set -euo pipefail
VEGA=6.4.0 VEGA_LITE=6.5.0 VEGA_EMBED=7.3.0
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/static/vendor/vega"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
npm init -y >/dev/null
npm install --silent --no-audit --no-fund "vega@$VEGA" "vega-lite@$VEGA_LITE" "vega-embed@$VEGA_EMBED"
M="$WORK/node_modules"
rm -rf "$OUT" && mkdir -p "$OUT"
cp "$M/vega/build/vega.min.js" "$M/vega-lite/build/vega-lite.min.js" \
  "$M/vega-embed/build/vega-embed.min.js" "$OUT/"
for pkg in vega vega-lite vega-embed; do cp "$M/$pkg/LICENSE" "$OUT/LICENSE-$pkg"; done
# The stylesheets vega-embed and vega-tooltip would otherwise inject as inline <style> elements,
# which our Content-Security-Policy refuses: shipped as files instead (charts.js links them).
node -e '
  const fs = require("fs");
  const css = (f) => fs.readFileSync(f, "utf8").match(/`([\s\S]*)`/)[1];
  fs.writeFileSync(process.argv[1] + "/vega-embed.css",
    css(process.argv[2] + "/vega-embed/src/style.ts") + css(process.argv[2] + "/vega-tooltip/src/style.ts"));
' "$OUT" "$M"
# What the bundles contain (each package's name, version and licence), for the licence notices.
node -e '
  const fs = require("fs"), path = require("path");
  const root = process.argv[1], seen = new Map();
  const walk = (name, from) => {
    let dir = from;
    while (!fs.existsSync(path.join(dir, "node_modules", name, "package.json"))) dir = path.dirname(dir);
    const p = path.join(dir, "node_modules", name);
    const pkg = JSON.parse(fs.readFileSync(path.join(p, "package.json"), "utf8"));
    const key = pkg.name + "@" + pkg.version;
    if (seen.has(key)) return;
    seen.set(key, pkg.license || "see package");
    for (const dep of Object.keys(pkg.dependencies || {})) walk(dep, p);
  };
  for (const top of ["vega", "vega-lite", "vega-embed"]) walk(top, root);
  const lines = [...seen].sort().map(([k, l]) => k + "\t" + l);
  fs.writeFileSync(process.argv[2] + "/PACKAGES.tsv", "package\tlicence\n" + lines.join("\n") + "\n");
' "$WORK" "$OUT"
{
  echo "# Vega, vendored"
  echo
  echo "Browser bundles copied unchanged from the npm packages by scripts/vendor_vega.sh:"
  echo "vega $VEGA, vega-lite $VEGA_LITE, vega-embed $VEGA_EMBED (vega-embed bundles"
  echo "vega-interpreter, the expression interpreter that lets charts run without 'unsafe-eval',"
  echo "and vega-tooltip). Licences: LICENSE-* (BSD-3-Clause); every package"
  echo "installed with them (a superset of what the bundles hold) with its licence: PACKAGES.tsv. vega-embed.css holds vega-embed's and vega-tooltip's own"
  echo "stylesheets, which they would otherwise inject inline (refused by our CSP)."
  echo
  echo '```'
  (cd "$OUT" && sha256sum vega.min.js vega-lite.min.js vega-embed.min.js)
  echo '```'
} >"$OUT/README.md"
ls -la "$OUT"
