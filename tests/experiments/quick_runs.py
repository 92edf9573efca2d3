"""Each registered experiment's quick form, computed once per test session.

``tests/experiments/test_registry.py`` validates every experiment in quick form, and the
test module of each experiment validates its own experiments in quick form again, for the
same rows: the same experiment, sides and seeds, hence the same numbers (an experiment's
rows depend only on its arguments).  :func:`validate_quick` is
:func:`qosmodels.experiments.validate` with ``quick=True`` in which one experiment's run
(``registry._run_experiment``, its rows and wall time) is computed at its first call in the
session and given again at the next ones; everything else of ``validate`` (the selection,
the order, the progress calls, the report) runs each time as it is.

A run is reused only for the experiment object registered when the session first asked for
it: a test that registers a stand-in under a real name (``monkeypatch``) is never given the
real experiment's rows, and calls ``validate`` itself anyway.
"""

from __future__ import annotations

from unittest import mock

from qosmodels.experiments import registry, validate

_RUN = registry._run_experiment
_DONE: dict[tuple, tuple] = {}


def _run_once(name, asked, quick, params=None):
    """``registry._run_experiment``, whose result is kept for the session by its arguments and
    the experiment object it ran."""
    exp = registry.experiments()[name]
    key = (name, frozenset(asked), bool(quick), None if params is None else
           tuple(sorted(params.items())))
    done = _DONE.get(key)
    if done is not None and done[0] is exp:
        return done[1]
    out = _RUN(name, asked, quick, params)
    _DONE[key] = (exp, out)
    return out


def validate_quick(names=None, **kwargs):
    """``validate(names, quick=True, **kwargs)``, each experiment's run computed once per
    session (see the module docstring); ``executor`` must be None (a run here, in this
    process, is what is kept)."""
    if kwargs.get("executor") is not None:
        raise TypeError("validate_quick runs the experiments in this process (executor=None)")
    with mock.patch.object(registry, "_run_experiment", _run_once):
        return validate(names, quick=True, **kwargs)
