"""The memory and work budgets (``qosmodels.budget``)."""

from __future__ import annotations

import os

import pytest

from qosmodels import budget
from qosmodels.errors import BudgetError, ScenarioError, ScenarioTypeError


@pytest.fixture(autouse=True)
def _restore():
    old = budget.set_memory_budget(None)
    yield
    budget.set_memory_budget(old)


def test_default_is_a_quarter_of_physical_memory(monkeypatch):
    monkeypatch.delenv("QOSMODELS_MEMORY_BUDGET", raising=False)
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert budget.memory_budget() == int(physical / 4)


def test_environment_and_setter(monkeypatch):
    monkeypatch.setenv("QOSMODELS_MEMORY_BUDGET", "3G")
    assert budget.memory_budget() == 3 * 2**30
    budget.set_memory_budget("100M")  # the setter wins over the environment
    assert budget.memory_budget() == 100 * 2**20
    budget.set_memory_budget(None)
    assert budget.memory_budget() == 3 * 2**30
    monkeypatch.setenv("QOSMODELS_MEMORY_BUDGET", "lots")
    with pytest.raises(ScenarioError, match="QOSMODELS_MEMORY_BUDGET"):
        budget.memory_budget()


@pytest.mark.parametrize("text, n", [(1, 1), ("1", 1), ("2K", 2048), ("1.5 M", 3 * 2**19),
                                     ("4GiB", 4 * 2**30), ("1t", 2**40)])
def test_parse_size(text, n):
    assert budget.parse_size(text) == n


@pytest.mark.parametrize("text, err", [("", ScenarioError), ("-1G", ScenarioError), (0, ScenarioError),
                                       ("8X", ScenarioError), (True, ScenarioTypeError),
                                       (1.5, ScenarioTypeError), (None, ScenarioTypeError)])
def test_parse_size_refuses(text, err):
    with pytest.raises(err, match="memory size"):
        budget.parse_size(text)


def test_check_memory_names_parameter_estimate_and_fix():
    budget.set_memory_budget("1M")
    budget.check_memory("f", 2**20, parameter="n", fix="lower n")  # at the budget: fine
    with pytest.raises(BudgetError, match=r"f would need about 2 MiB of memory for n = 5, over "
                                          r"the budget of 1 MiB; lower n \(or raise"):
        budget.check_memory("f", 2**21, parameter="n = 5", fix="lower n")
    # estimates beyond 64-bit integers and NaN are refused too
    for n in (7e30, float("nan")):
        with pytest.raises(BudgetError):
            budget.check_memory("f", n, parameter="n", fix="lower n")
    assert issubclass(BudgetError, ValueError)


def test_check_work():
    budget.check_work("f", 10, 10, what="steps", parameter="dt", fix="raise dt")
    with pytest.raises(BudgetError, match=r"f would take about 11 steps \(dt\), over its budget "
                                          r"of 10; raise dt"):
        budget.check_work("f", 11, 10, what="steps", parameter="dt", fix="raise dt")
