"""The step plan of the single-link fluid solvers (:func:`~qosmodels.fluid.mgt.solve_mgt`,
:func:`~qosmodels.fluid.dctcp.solve_dctcp_fluid`): how many fixed steps, which are saved,
within the work and memory budgets, and the size of the delayed-state ring."""

from __future__ import annotations

import math

from .. import _validate as v
from ..budget import check_memory, check_work


def step_plan(owner: str, t_end: float, dt: float, save_dt: float, max_steps, default_max: int,
              n_series: int) -> tuple[int, int, int]:
    """``(n_steps, save_every, n_saves)`` of a run of ``t_end`` s at steps of ``dt`` s saving
    ``n_series`` series every ``save_dt`` s; refused (naming ``owner``) beyond ``max_steps``
    (``default_max`` when None) or the memory budget."""
    limit = default_max if max_steps is None else v.integer(owner, "max_steps", max_steps, ge=1)
    n_steps = math.ceil(t_end / dt - 1e-9)
    check_work(owner, n_steps, limit, what="integration steps",
               parameter=f"t_end / dt = {t_end!r} / {dt!r}",
               fix="shorten t_end, lengthen dt, or pass a larger max_steps")
    save_every = max(1, round(save_dt / dt))
    n_saves = n_steps // save_every + 1
    check_memory(owner, n_series * 8 * n_saves, parameter=f"{n_saves} saved samples",
                 fix="use a larger save_dt")
    return n_steps, save_every, n_saves


def ring_size(span: float, dt: float) -> int:
    """Slots of a ring holding ``span`` s of history at steps of ``dt`` s: a power of two,
    at least 4, with 4 steps to spare."""
    return 1 << max(2, math.ceil(math.log2(span / dt + 4)))
