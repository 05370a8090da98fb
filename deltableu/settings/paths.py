"""Where the project lives and where it keeps its files (var/: SQLite, uploads, caches)."""

from __future__ import annotations

from pathlib import Path

from deltableu.env import env_str

BASE_DIR = Path(__file__).resolve().parents[2]
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)
