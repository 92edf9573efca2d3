"""Fuzz: the papers' closed forms with any arguments.

Each call either raises a ScenarioError (or its TypeError flavour) whose message names the
function's argument it refuses, or returns values that are all finite; the arguments are
left as they were.  (Where a closed form's value leaves the floating-point range it must
say so, which is a ScenarioError too.)
"""

from __future__ import annotations

import copy
import inspect

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from qosmodels import abe, fairness, fq, pps, tokenbucket
from qosmodels.errors import ScenarioError

from .strategies import FUZZ, any_value

#: (function, plausible arguments); one argument at a time is replaced by a fuzzed value.
CASES = [
    (abe.throughput, (0.01, 0.1)),
    (abe.throughput_small_loss, (0.01, 0.1)),
    (abe.loss_for_throughput, (100.0, 0.1)),
    (abe.alpha, (1.5, 0.02, 0.05, 0.14)),
    (abe.throughput_ratio, (2.0, 0.02, 0.05, 0.14)),
    (abe.green_loss_target, (1.5, 0.02, 0.05, 0.14)),
    (abe.delta, (1.5, 0.02, 0.05, 0.14)),
    (pps.packet_tag, (10.0, 5.0)),
    (pps.exchange_rate, (10.0, 5.0)),
    (pps.poor_flow_rate, (1e5, 1.0, 3.0)),
    (pps.tred_multiplier, (2.0, 4.0)),
    (pps.tred_drop_probability, (0.1, 2.0, 4.0)),
    (pps.udp_drop_probability, (2.0, 4.0)),
    (fq.telnet_delay, (3, 0.5)),
    (fq.fcfs_telnet_delay, (3, 5, 0.5)),
    (tokenbucket.sawtooth_throughput, (0.01, 0.1)),
    (fairness.jain_index, ([1.0, 2.0, 3.0],)),
    (fairness.coefficient_of_variation, ([1.0, 2.0, 3.0],)),
]


def values(result):
    """The numbers in a result (a float, an array, a named tuple or dataclass of them)."""
    if isinstance(result, (int, float, np.floating, np.integer)):
        return np.array([float(result)])
    if isinstance(result, np.ndarray):
        return result.astype(float).ravel()
    if hasattr(result, "_asdict"):
        result = result._asdict()
    elif hasattr(result, "__dataclass_fields__"):
        result = {k: getattr(result, k) for k in result.__dataclass_fields__}
    if isinstance(result, dict):
        parts = [values(v) for v in result.values()
                 if isinstance(v, (int, float, np.ndarray, np.floating)) and not isinstance(v, bool)]
        return np.concatenate(parts) if parts else np.zeros(0)
    return np.zeros(0)


@FUZZ
@given(case=st.sampled_from(range(len(CASES))), data=st.data())
def test_closed_form(case, data):
    f, good = CASES[case]
    names = list(inspect.signature(f).parameters)[:len(good)]
    k = data.draw(st.integers(0, len(good) - 1), label="argument")
    bad = data.draw(st.one_of(any_value, st.lists(any_value, max_size=4)), label="value")
    args = list(good)
    args[k] = bad
    before = copy.deepcopy(args)
    try:
        result = f(*args)
    except ScenarioError as e:
        assert names[k] in str(e) or any(n in str(e) for n in names), (f.__name__, str(e))
        return
    finally:
        assert repr(args) == repr(before), f"{f.__name__} changed its arguments"
    v = values(result)
    assert np.all(np.isfinite(v)), (f.__name__, args, result)


@FUZZ
@given(case=st.sampled_from(range(len(CASES))))
def test_plausible_arguments_give_finite_results(case):
    f, good = CASES[case]
    assert np.all(np.isfinite(values(f(*good))))
