"""Budgets: how much memory one call may ask for, and how much work, before it starts.

Every array whose size follows from user input (a packet pool, saved samples,
histories, a trace-level engine's tables, a topology builder's lists) is
estimated before it is allocated; a call whose estimate is over the budget
raises :class:`~qosmodels.errors.BudgetError` naming the parameter that sized
it, the estimate and the fix, and changes nothing.  Long runs likewise predict
their work (events, integration steps) and refuse what would not end in
reasonable time.

The memory budget is a quarter of the machine's physical memory unless the
environment variable ``QOSMODELS_MEMORY_BUDGET`` (bytes, or with a suffix
``K``, ``M``, ``G``, ``T``: powers of 1024) or :func:`set_memory_budget` says
otherwise; a call that takes its own limit (``simulate(...,
limits=Limits(memory=...))``) uses that instead.

Examples
--------
>>> from qosmodels import budget
>>> budget.parse_size("512M")
536870912
>>> old = budget.set_memory_budget(2**30)
>>> budget.check_memory("example", 2**20, parameter="n", fix="use a smaller n")
>>> budget.set_memory_budget(old) == 2**30
True
"""

from __future__ import annotations

import os
import re

from .errors import BudgetError, ScenarioError, ScenarioTypeError

__all__ = ["MEMORY_FRACTION", "memory_budget", "set_memory_budget", "check_memory",
           "check_work", "parse_size", "format_bytes"]

#: The default memory budget as a fraction of the machine's physical memory.
MEMORY_FRACTION = 0.25
#: Used when the physical memory cannot be read: 4 GiB.
_FALLBACK = 4 * 2**30
_ENV = "QOSMODELS_MEMORY_BUDGET"
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}

_override: int | None = None


def parse_size(text) -> int:
    """A size in bytes from an int or a string such as ``"8G"`` or ``"512M"`` (powers of 1024).

    >>> parse_size(1024), parse_size("1.5K"), parse_size("2 G")
    (1024, 1536, 2147483648)
    """
    if isinstance(text, bool):
        raise ScenarioTypeError(f"a memory size must be bytes (an int) or a string such as "
                                f"'8G', got {text!r}")
    if isinstance(text, int):
        n = text
    elif isinstance(text, str):
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([KMGT]?)(?:I?B)?\s*", text.upper())
        if not m:
            raise ScenarioError(f"a memory size must be bytes or a number with K, M, G or T "
                                f"(powers of 1024), such as '8G', got {text!r}")
        n = int(float(m.group(1)) * _UNITS[m.group(2)])
    else:
        raise ScenarioTypeError(f"a memory size must be bytes (an int) or a string such as "
                                f"'8G', got {text!r} of type {type(text).__name__}")
    if n <= 0:
        raise ScenarioError(f"a memory size must be > 0 bytes, got {text!r}")
    return n


def _physical_memory() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return 4 * _FALLBACK


def memory_budget() -> int:
    """The memory, in bytes, one call may ask for: :func:`set_memory_budget`'s value, else
    ``QOSMODELS_MEMORY_BUDGET``, else :data:`MEMORY_FRACTION` of the physical memory."""
    if _override is not None:
        return _override
    env = os.environ.get(_ENV)
    if env:
        try:
            return parse_size(env)
        except ScenarioError as e:
            raise ScenarioError(f"environment variable {_ENV}: {e}") from None
    return int(MEMORY_FRACTION * _physical_memory())


def set_memory_budget(n_bytes) -> int | None:
    """Set the memory budget for this process (bytes, or a string such as ``"8G"``; None
    restores the default); returns the previous setting (None for the default)."""
    global _override
    previous = _override
    _override = None if n_bytes is None else parse_size(n_bytes)
    return previous


def format_bytes(n: float) -> str:
    """``n`` bytes for people: ``"7.5 GiB"``.

    >>> format_bytes(3 * 2**30 / 2), format_bytes(100)
    ('1.5 GiB', '100 B')
    """
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.3g} {unit}" if n / size < 1e4 else f"{n / size:.3e} {unit}"
    return f"{n:.0f} B"


def check_memory(owner: str, n_bytes: float, *, parameter: str, fix: str,
                 budget: int | None = None, raise_with: str | None = None) -> None:
    """Raise :class:`BudgetError` if allocating ``n_bytes`` would exceed the budget.

    Parameters
    ----------
    owner : str
        The call, as the user wrote it (``"simulate"``, ``"fq.fair_queue"``).
    n_bytes : float
        The estimate (a float, so that estimates beyond 2**63 still compare).
    parameter : str
        The input that sized the allocation, with its value where that helps.
    fix : str
        What to change.
    budget : int, optional
        Bytes allowed (default :func:`memory_budget`).
    raise_with : str, optional
        The call's own way to raise its budget, named first in the message.
    """
    limit = memory_budget() if budget is None else budget
    if not n_bytes <= limit:
        raise BudgetError(
            f"{owner} would need about {format_bytes(n_bytes)} of memory for {parameter}, over "
            f"the budget of {format_bytes(limit)}; {fix} (or raise the budget: "
            f"{raise_with + ', ' if raise_with else ''}qosmodels.budget.set_memory_budget(...) "
            f"or {_ENV})")


def check_work(owner: str, amount: float, limit: float, *, what: str, parameter: str,
               fix: str) -> None:
    """Raise :class:`BudgetError` if the predicted ``amount`` of work (``what``: "events",
    "integration steps") is over ``limit``; the message names ``parameter`` and ``fix``."""
    if not amount <= limit:
        raise BudgetError(
            f"{owner} would take about {amount:.3g} {what} ({parameter}), over its budget of "
            f"{limit:.3g}; {fix}")
