"""The import graph: no cycles, and floors that depend one way only.

Floors, bottom up: the metric library (`scoring.metrics`, Django-free, imports no other part of
the project); the platform (`core`, which imports no app); the annotation apps (`annotate`,
which may use the metric library through its public package only); the scoring apps (`scoring`).
The project's wiring (`deltableu`: settings, URLs, the Celery app) may import anything. Read with
`ast`, so a new cycle or an upward import fails here before review.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Source roots and the top-level packages under each: the web app's, and the metric library's
# distribution (packages/deltableu-metrics, installed like any dependency).
SOURCES = (
    (ROOT, ("core", "annotate", "scoring", "deltableu")),
    (ROOT / "packages" / "deltableu-metrics" / "src", ("scoring",)),
)


def _module_name(path: Path, base: Path) -> str:
    parts = list(path.relative_to(base).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {
        _module_name(path, base): path
        for base, packages in SOURCES
        for package in packages
        for path in (base / package).rglob("*.py")
        if "migrations" not in path.parts
    }


def test_the_metric_library_is_found():
    assert "scoring.metrics.cli" in _modules()


@cache  # the source does not change during a run; several tests read each module's imports
def _imports(name: str, path: Path) -> frozenset[str]:
    """Every module `name` imports, module-level or inside functions, relative ones resolved."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            module = (
                (f"{base}.{node.module}" if node.module else base) if node.level else node.module
            )
            found.add(module or "")
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return frozenset(found)


def _graph() -> dict[str, set[str]]:
    modules = _modules()

    def resolve(target: str) -> str | None:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        return target or None

    return {
        name: {r for t in _imports(name, path) if (r := resolve(t)) and r != name}
        for name, path in modules.items()
    }


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


# Each app may import only from floors below its own (apps on one floor not from each other).
FLOORS = [
    ["scoring.metrics"],
    ["core", "annotate", "scoring"],  # the roots hold the apps (`scoring`: a namespace package)
    ["annotate.accounts"],
    ["annotate.datasets"],
    ["annotate.mining", "annotate.judgments"],
    ["annotate.rating"],
    ["annotate.releases"],
    ["scoring.leaderboards"],
    ["scoring.study"],
    ["scoring.demo"],  # the demo's story, built through every app's services
    ["deltableu"],
]
FLOOR_OF = {package: floor for floor, packages in enumerate(FLOORS) for package in packages}


def _package(module: str) -> str:
    """The longest package of FLOORS that holds the module."""
    holders = [p for p in FLOOR_OF if module == p or module.startswith(p + ".")]
    if not holders:
        raise AssertionError(f"{module} is in no floor: add its app to FLOORS")
    return max(holders, key=len)


def _floor(module: str) -> int:
    return FLOOR_OF[_package(module)]


def test_the_import_graph_has_no_cycles():
    assert _cycles(_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_imports_a_higher_floor():
    upward = [
        f"{name} → {target}"
        for name, targets in _graph().items()
        if not name.startswith("deltableu")
        for target in targets
        if _floor(target) > _floor(name)
        or (_floor(target) == _floor(name) and _package(target) != _package(name))
    ]
    assert upward == []


def test_annotate_uses_the_metric_library_through_its_public_package_only():
    reaching_in = [
        f"{name} → {target}"
        for name, targets in _graph().items()
        if name.startswith("annotate")
        for target in targets
        if target.startswith("scoring.metrics.")
    ]
    assert reaching_in == []


def test_the_metric_library_imports_no_django():
    modules = _modules()
    offenders = [
        name
        for name in modules
        if _floor(name) == 0
        and any(m.split(".")[0] == "django" for m in _imports(name, modules[name]))
    ]
    assert offenders == []
