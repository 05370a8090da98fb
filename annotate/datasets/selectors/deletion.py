"""What deleting a dataset takes with it, and what keeps it (or any row), before anything is
deleted.

Read from the models' own foreign keys rather than listed by hand: campaigns, ratings,
evaluated systems, judgments and the rest belong to apps above this one, which this app may not
import, and a list kept by hand would fall behind the next model. Everything a CASCADE reaches
is counted with one COUNT query per model (no row is loaded, so a dataset of a million
references costs a few queries); a PROTECT or RESTRICT reference from outside that set is a
blocker, named (a release is citable: it keeps its dataset).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import models
from django.db.models import Q, QuerySet

from annotate.datasets.models import Dataset

NAMED_BLOCKERS = 5  # objects named per blocking kind; the rest are counted
# Why a kind of object keeps its dataset, when the model's name alone does not say.
BLOCKER_REASONS = {
    "releases.release": "a release is citable and keeps its dataset; delete draft releases "
    "from their pages first (a published one cannot be deleted)",
    "study.correlationstudy": "a study reads its ratings or weights; delete the study first",
}


@dataclass(frozen=True)
class Doomed:
    model: str  # app_label.model_name
    label: str  # plural, for people
    count: int


@dataclass(frozen=True)
class Blocker:
    model: str
    label: str  # singular for one
    count: int
    names: list[str]
    reason: str = ""

    def __str__(self) -> str:
        more = self.count - len(self.names)
        listed = ", ".join(self.names) + (f" and {more} more" if more > 0 else "")
        return f"{self.count} {self.label} ({listed})" + (f": {self.reason}" if self.reason else "")


@dataclass(frozen=True)
class DeletionPreview:
    dataset: Dataset
    doomed: list[Doomed] = field(default_factory=list)
    blockers: list[Blocker] = field(default_factory=list)

    @property
    def can_delete(self) -> bool:
        return not self.blockers

    def refusal(self) -> str:
        kept = "; ".join(str(blocker) for blocker in self.blockers)
        return f"The dataset {self.dataset.slug!r} cannot be deleted: {kept}."


Model = type[models.Model]
Edge = tuple[str, Model]  # (foreign key on the child, the parent it points to)


def _reverse_relations(model: Model) -> list[models.ForeignObjectRel]:
    """Foreign keys pointing at `model`, hidden ones (related_name="+") included, as deletion
    follows them (what django.db.models.deletion.Collector looks at)."""
    return [
        f
        for f in model._meta.get_fields(include_hidden=True)
        if isinstance(f, models.ForeignObjectRel) and (f.one_to_many or f.one_to_one)
    ]


def _graph(root: Model) -> tuple[list[Model], dict[Model, list[Edge]], list[tuple[Model, Edge]]]:
    """Models a delete of `root` cascades to (breadth first), each one's cascading parents,
    and the (child, edge) pairs that protect a model of that set."""
    order: list[Model] = [root]
    parents: dict[Model, list[Edge]] = {}
    protecting: list[tuple[Model, Edge]] = []
    queue = [root]
    while queue:
        model = queue.pop(0)
        for rel in _reverse_relations(model):
            child, edge = rel.related_model, (rel.field.name, model)
            if rel.on_delete is models.CASCADE:
                parents.setdefault(child, []).append(edge)
                if child not in order:
                    order.append(child)
                    queue.append(child)
            elif rel.on_delete in (models.PROTECT, models.RESTRICT):
                protecting.append((child, edge))
    return order, parents, protecting


class _Rows:
    """The rows of each model that a delete of one row (a dataset) reaches, as lazy querysets."""

    def __init__(self, root: models.Model, parents: dict[Model, list[Edge]]):
        self.parents = parents
        model = type(root)
        self.cache: dict[Model, QuerySet] = {model: model._base_manager.filter(pk=root.pk)}

    def of(self, model: Model, path: tuple[Model, ...] = ()) -> QuerySet:
        if model not in self.cache:
            edges = [(n, p) for n, p in self.parents.get(model, []) if p not in path]
            # A cascade cycle adds nothing new: its edge back is left out.
            self.cache[model] = self.referring(model, edges, (*path, model))
        return self.cache[model]

    def referring(self, model: Model, edges: list[Edge], path: tuple[Model, ...] = ()) -> QuerySet:
        """Rows of `model` whose foreign key of an edge points at a reached row of its parent."""
        reached = Q(pk__in=[])
        for name, parent in edges:
            reached |= Q(**{f"{name}__in": self.of(parent, path).values("pk")})
        return model._base_manager.filter(reached)


def _label(model: Model) -> str:
    return str(model._meta.verbose_name_plural)


def _blocker(model: Model, rows: QuerySet) -> Blocker:
    key, count = model._meta.label_lower, rows.count()
    names = [str(row) for row in rows.order_by("pk")[:NAMED_BLOCKERS]]
    label = str(model._meta.verbose_name) if count == 1 else _label(model)
    return Blocker(key, label, count, names, BLOCKER_REASONS.get(key, ""))


def dataset_deletion_preview(*, dataset: Dataset) -> DeletionPreview:
    """Every kind of row a delete of `dataset` removes, counted (the dataset itself first), and
    what refers to it and would refuse the delete."""
    order, parents, protecting = _graph(Dataset)
    rows = _Rows(dataset, parents)
    doomed = [
        Doomed(model._meta.label_lower, _label(model), rows.of(model).count())
        for model in order
        if not model._meta.auto_created  # many-to-many link rows go with either end
    ]
    blockers = _blockers(rows, order, protecting)
    return DeletionPreview(dataset=dataset, doomed=doomed, blockers=blockers)


def deletion_blockers(*, root: models.Model) -> list[Blocker]:
    """What refers to `root`, or to a row its delete cascades to, and would refuse the delete
    (PROTECT or RESTRICT), named: one EXISTS query per kind that could."""
    order, parents, protecting = _graph(type(root))
    return _blockers(_Rows(root, parents), order, protecting)


def _blockers(
    rows: _Rows, order: list[Model], protecting: list[tuple[Model, Edge]]
) -> list[Blocker]:
    by_child: dict[Model, list[Edge]] = {}
    for child, edge in protecting:
        by_child.setdefault(child, []).append(edge)
    blockers = []
    for child, edges in by_child.items():
        referring = rows.referring(child, edges)
        if child in order:  # deleted along with the root: no obstacle
            referring = referring.exclude(pk__in=rows.of(child).values("pk"))
        if referring.exists():
            blockers.append(_blocker(child, referring))
    return blockers
