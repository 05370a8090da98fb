"""The layers hold: selectors only read; views, commands and tasks query nothing themselves.

Read from the source with `ast`, so a violation fails here before any review has to spot it:
- a selector imports no service, writes nothing, and knows nothing of HTTP (no Http404, no
  get_object_or_404: it raises core.errors.NotFound, which pages and the API answer as a 404);
- a view or API module (and the forms and template tags pages use), a management command (and
  the helpers commands share) and a Celery task module reach no model manager (`Model.objects…`)
  and call no get_object_or_404: their queries live in selectors, their writes in services. The
  one exception is `Model.objects.none()`, the empty placeholder a form or serializer field
  declares before its real queryset is set, which never queries.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Every app's layers, wherever the app lives: a module or a package of that name.
APP_ROOTS = ("annotate", "scoring")
SELECTOR_LAYERS = ("selectors",)
# Pages' own helpers count as pages: the forms they show and the template tags they load.
VIEW_LAYERS = ("views", "api", "forms", "templatetags")
# Thin as views are: they parse, call a service or a selector, and print or return.
COMMAND_AND_TASK_LAYERS = ("management", "commands", "tasks")
HTTP_NOT_FOUND = {"Http404", "get_object_or_404"}
# Methods that write whatever they are called on (a queryset, a manager, a model instance).
WRITES = {
    "save",
    "create",
    "delete",
    "get_or_create",
    "update_or_create",
    "bulk_create",
    "bulk_update",
    "select_for_update",
}


def _modules(layers: tuple[str, ...], roots: tuple[str, ...] = APP_ROOTS) -> list[Path]:
    """The app modules of these layers: `<app>/<layer>.py` (or `<app>/<something>_<layer>.py`, a
    layer split in two) and everything in `<app>/<layer>/`."""

    def of_layer(part: str) -> bool:
        return any(part == layer or part.endswith(f"_{layer}") for layer in layers)

    found = set()
    for root in roots:
        for path in (ROOT / root).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if "metrics" not in parts and any(of_layer(part) for part in parts):
                found.add(path)
    return sorted(found)


def _imported_modules(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.module:
        # `from annotate import services` imports the package as surely as `import` does.
        return [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
    return []


def _is_service(module: str) -> bool:
    """A module of an app's services layer (`<app>.services` or below), or the package itself
    imported from its app (`from annotate.rating import services`)."""
    return "services" in module.split(".")


def _names_used(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Attribute):
        return {node.attr}
    if isinstance(node, ast.ImportFrom):
        return {alias.name for alias in node.names}
    return set()


def _is_queryset_update(node: ast.Call) -> bool:
    """`….objects.update(…)` or `….filter(…).update(…)`; not `digest.update` or `dict.update`."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "update"):
        return False
    receiver = func.value
    return isinstance(receiver, ast.Call) or (
        isinstance(receiver, ast.Attribute) and receiver.attr == "objects"
    )


def _write_method(node: ast.AST) -> str:
    """The name of the writing method that `node` calls, or "" when it writes nothing."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return ""
    writes = node.func.attr in WRITES or _is_queryset_update(node)
    return node.func.attr if writes else ""


def selector_problems(source: str) -> list[str]:
    """What a selector module does that a selector must not, one line per offence."""
    problems = []
    for node in ast.walk(ast.parse(source)):
        line = getattr(node, "lineno", 0)
        services = [m for m in _imported_modules(node) if _is_service(m)]
        if services:
            problems.append(f"line {line}: imports {services[0]}")
        if "django.db.transaction" in _imported_modules(node):
            problems.append(f"line {line}: imports django.db.transaction")
        http = _names_used(node) & HTTP_NOT_FOUND
        if http:
            problems.append(f"line {line}: uses {sorted(http)[0]} (raise core.errors.NotFound)")
        write = _write_method(node)
        if write:
            problems.append(f"line {line}: writes with .{write}()")
    return problems


def _is_none_placeholder(node: ast.Attribute, parents: dict[ast.AST, ast.AST]) -> bool:
    """`X.objects.none()`: the attribute `none` of `X.objects`, called without arguments."""
    parent = parents.get(node)
    call = parents.get(parent) if parent is not None else None
    return (
        isinstance(parent, ast.Attribute)
        and parent.attr == "none"
        and isinstance(call, ast.Call)
        and call.func is parent
        and not call.args
    )


def view_problems(source: str) -> list[str]:
    """Where a view or API module queries the ORM itself, one line per offence."""
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    problems = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        is_manager = isinstance(node, ast.Attribute) and node.attr == "objects"
        if is_manager and not _is_none_placeholder(node, parents):
            problems.append(f"line {line}: uses .objects (query through a selector)")
        if "get_object_or_404" in _names_used(node):
            problems.append(f"line {line}: uses get_object_or_404 (query through a selector)")
    return problems


def _relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("path", _modules(SELECTOR_LAYERS), ids=_relative)
def test_a_selector_only_reads(path):
    problems = selector_problems(path.read_text())
    assert not problems, f"{_relative(path)}: {'; '.join(problems)}"


@pytest.mark.parametrize("path", _modules(VIEW_LAYERS), ids=_relative)
def test_a_view_queries_through_selectors(path):
    problems = view_problems(path.read_text())
    assert not problems, f"{_relative(path)}: {'; '.join(problems)}"


# The run engine's app in core/ has its command and tasks too.
COMMANDS_AND_TASKS = _modules(COMMAND_AND_TASK_LAYERS, (*APP_ROOTS, "core"))


@pytest.mark.parametrize("path", COMMANDS_AND_TASKS, ids=_relative)
def test_a_command_or_task_queries_through_selectors(path):
    problems = view_problems(path.read_text())
    assert not problems, f"{_relative(path)}: {'; '.join(problems)}"


def test_every_layer_is_checked():
    # A moved folder must not make the checks above pass by checking nothing.
    assert len(_modules(SELECTOR_LAYERS)) >= 10 and len(_modules(VIEW_LAYERS)) >= 10
    assert ROOT / "scoring/leaderboards/leaderboard_forms.py" in _modules(VIEW_LAYERS)
    names = {_relative(path) for path in COMMANDS_AND_TASKS}
    assert len(names) >= 25
    assert "annotate/datasets/commands.py" in names and "core/runs/tasks.py" in names
    assert "scoring/leaderboards/management/commands/submit.py" in names


@pytest.mark.parametrize(
    "source",
    [
        "from annotate.rating.services.weights import counted_ratings",
        "from scoring.leaderboards.services import references",
        "import annotate.releases.services.reveal",
        "from annotate.rating import services",
        "from django.http import Http404",
        "import django.http\nraise django.http.Http404('No such thing.')",
        "from django.shortcuts import get_object_or_404",
        "from django.db import transaction",
        "def f(c):\n    c.save()",
        "def f(M):\n    M.objects.create(name='x')",
        "def f(M):\n    M.objects.filter(pk=1).update(name='x')",
        "def f(M):\n    M.objects.filter(pk=1).delete()",
        "def f(M):\n    return M.objects.select_for_update().get(pk=1)",
    ],
)
def test_the_selector_rule_catches(source):
    assert selector_problems(source)


@pytest.mark.parametrize(
    "source",
    [
        "import hashlib\nd = hashlib.sha256()\nd.update(b'x')",
        "def f(context):\n    context.update(a=1)",
        "from core.errors import NotFound\nraise NotFound('No such thing.')",
        "from annotate.rating.selectors.campaigns import FINISHED",
    ],
)
def test_the_selector_rule_lets_reads_be(source):
    assert selector_problems(source) == []


@pytest.mark.parametrize(
    "source",
    [
        "def v(r):\n    return Campaign.objects.filter(owner=r.user)",
        "def v(r):\n    return Campaign.objects.none().union(Campaign.objects.all())",
        "from django.shortcuts import get_object_or_404",
        "def v(r, shortcuts):\n    return shortcuts.get_object_or_404(Campaign, pk=1)",
    ],
)
def test_the_view_rule_catches(source):
    assert view_problems(source)


def test_the_view_rule_lets_a_field_declare_an_empty_queryset():
    source = "class F:\n    corpus = ModelChoiceField(queryset=Corpus.objects.none())"
    assert view_problems(source) == []
