"""The metric base class: a metric's description is its docstring unless it sets one."""

from __future__ import annotations

from scoring.metrics import get_entry
from scoring.metrics.grr import GRR


def test_the_description_is_the_docstring_on_one_line():
    assert get_entry("4grr").description == GRR.description == " ".join(GRR.__doc__.split())
    assert GRR.description.startswith("4-gram recognition rate (Chiang et al. 2008): monotone")
    assert "\n" not in GRR.description and "  " not in GRR.description


def test_a_description_that_is_set_wins_over_the_docstring():
    class Described(GRR):
        """What a developer reads."""

        description = "What a user reads."

    class Undescribed(GRR):
        pass

    assert Described.description == "What a user reads."
    assert Undescribed.description == GRR.description  # no docstring of its own: inherited
