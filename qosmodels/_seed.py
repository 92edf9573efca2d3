"""The one seeding rule of qosmodels' stochastic entry points.

Every function that draws random numbers takes a keyword ``seed`` with no
default, as :func:`qosmodels.simulate` does: a non-negative ``int``, a
:class:`numpy.random.SeedSequence` or a :class:`numpy.random.Generator`.  The
same int or SeedSequence gives the same numbers; a Generator is drawn from
directly (and advances).  Anything else raises
:class:`~qosmodels.errors.ScenarioError` (a :class:`ScenarioTypeError` for a
wrong type) naming ``seed`` and the accepted types.
"""

from __future__ import annotations

import numbers

import numpy as np

from .errors import ScenarioError, ScenarioTypeError

__all__ = ["generator", "seed_sequence", "fresh", "check", "ACCEPTED"]

#: What a ``seed`` may be, as the error messages say it.
ACCEPTED = "a non-negative int, a numpy SeedSequence or Generator"


def check(owner: str, seed) -> None:
    """Raise unless ``seed`` is one of :data:`ACCEPTED` (changes nothing)."""
    if isinstance(seed, (np.random.Generator, np.random.SeedSequence)):
        return
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise ScenarioTypeError(
            f"{owner}.seed must be {ACCEPTED}, got {seed!r}; pass seed=0 (or any integer) for a "
            f"reproducible run")
    if int(seed) < 0:
        raise ScenarioError(f"{owner}.seed must be {ACCEPTED}, got the negative integer {seed!r}")


def generator(owner: str, seed) -> np.random.Generator:
    """The :class:`numpy.random.Generator` a stochastic function draws from.

    Parameters
    ----------
    owner : str
        The function, as the user called it (``"abe.run_loop"``).
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        An int >= 0 or a SeedSequence seeds a new PCG64 generator
        (``numpy.random.default_rng(seed)``); a Generator is used as it is.

    Returns
    -------
    numpy.random.Generator

    Raises
    ------
    ScenarioTypeError
        If ``seed`` is None, a bool, a float, a string or any other type.
    ScenarioError
        If ``seed`` is a negative integer.

    Examples
    --------
    >>> g = generator("example", 7)
    >>> float(g.random()) == float(generator("example", 7).random())
    True
    """
    check(owner, seed)
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    return np.random.default_rng(int(seed))


def seed_sequence(owner: str, seed) -> np.random.SeedSequence:
    """The :class:`numpy.random.SeedSequence` a stochastic function derives its streams from.

    An int >= 0 gives ``SeedSequence(seed)``, a SeedSequence is used as it is,
    and a Generator gives a SeedSequence seeded by one integer drawn from it
    (so the Generator advances, as :func:`generator` lets it).  For entry
    points that need several independent streams or a generator of their own
    kind (the packet simulator's MRG32k3a, :func:`qosmodels.sim.replicate`'s
    runs).  Raises as :func:`check`.
    """
    check(owner, seed)
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(int(seed.integers(0, 2**63 - 1)))
    return np.random.SeedSequence(int(seed))


def fresh(ss: np.random.SeedSequence) -> np.random.SeedSequence:
    """A copy of ``ss`` with no children spawned yet: spawning from it gives the same children
    every time, and leaves the caller's SeedSequence as it was."""
    return np.random.SeedSequence(ss.entropy, spawn_key=ss.spawn_key, pool_size=ss.pool_size)


def describe(seed):
    """``seed`` as results record it: the int itself, else its ``repr``."""
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        return int(seed)
    return repr(seed)
