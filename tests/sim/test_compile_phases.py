"""``compile_scenario``'s arrays on the fingerprint scenarios, held against stored digests.

Issue 33 splits ``compile_scenario`` into named phases and moves the per-mechanism route
rules behind their mechanisms; the compiled arrays must stay byte-identical.  The digests in
``tests/sim/data/compile_digests.json`` were written by :func:`digests` at the commit before
that restructuring (main at 90fa7e3), so they come from the code as it was, not from the
code under test.  Regenerate them only for a change that is meant to alter the arrays:

    python tests/sim/test_compile_phases.py write

The scenarios are those of ``benchmarks/fingerprint_sim.py`` (the benchmark dumbbells, the
four TCP rule sets with queued reverse links, 40 random mixed networks using every queue,
source and edge element), compiled with the options its ``dump`` simulates them with.
Compiling needs no Numba kernel, so the test takes a few seconds.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from qosmodels.errors import ScenarioError
from qosmodels.sim import Record
from qosmodels.sim.compile import Compiled, compile_scenario

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data" / "compile_digests.json"


def _fingerprint():
    spec = importlib.util.spec_from_file_location(
        "fingerprint_sim", ROOT / "benchmarks" / "fingerprint_sim.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def digest(a) -> str:
    """SHA-256 of an array's dtype, shape and bytes (C order)."""
    a = np.ascontiguousarray(a)
    h = hashlib.sha256(f"{a.dtype.str}{a.shape}".encode())
    h.update(a.tobytes())
    return h.hexdigest()


#: The packed parameter rows' length when the digests were written; session 45 added a
#: column (``TicketRed``'s reissue) at the end of every row of ``lf``, ``ff`` and ``ef``.
STORED_PARAM_ROW = 16


def _param_rows(field):
    """The start of ``field``'s packed parameter row (None: the field has none)."""
    from qosmodels.sim._kernels import layout as K

    return {"lf": K.LF_QP, "ff": K.FF_SP, "ef": K.EF_EP}.get(field)


def _stored_columns(field, a):
    """``a`` in the layout the digests were written with: without the columns appended to
    the flows' rows since (the receiver's delayed ACKs, session 44: ``FF_DA_TIMEOUT``,
    ``FI_DA_M`` .. ``FI_GROW_PACKETS``, and RACK-TLP's ``FI_RACK``: the last columns of
    ``ff`` and ``fi``) and without the parameter rows' columns past
    :data:`STORED_PARAM_ROW`; their values in the fingerprint scenarios are checked by
    :func:`test_the_appended_columns_hold_their_off_values`."""
    from qosmodels.sim._kernels import layout as K

    if field == "ff":
        a = a[:, :K.FF_DA_TIMEOUT]
    if field == "fi":
        return a[:, :K.FI_DA_M]
    start = _param_rows(field)
    if start is not None:
        a = np.delete(a, np.arange(start + STORED_PARAM_ROW, start + K.PARAM_ROW), axis=1)
    return a


def _scenarios():
    for name, net, duration, warmup, seed in _fingerprint().scenarios():
        yield name, compile_scenario(net, duration, seed=seed, warmup=warmup,
                                     record=Record(interval=0.5, cwnd=True))


def digests() -> dict[str, dict[str, str]]:
    """``{scenario: {field: digest}}`` of every fingerprint scenario's compiled arrays."""
    out = {}
    for name, c in _scenarios():
        out[name] = {field: digest(_stored_columns(field, getattr(c, field)))
                     for field in Compiled._fields}
    return out


def test_the_appended_columns_hold_their_off_values():
    # no fingerprint scenario asks for delayed ACKs, per-packet growth or RACK-TLP, but the
    # SACK senders' (added in session 50, with their options on): the columns appended for
    # them are the last ones, and hold what ``delack.setup`` writes for "off" (and FI_RACK
    # 0, RACK off)
    from qosmodels.sim._kernels import layout as K

    assert K.N_FF == K.FF_DA_TIMEOUT + 1 and K.N_FI == K.FI_RACK + 1
    scenarios = dict(_scenarios())
    options = {"modern-reno-sack-options": K.FF_DA_TIMEOUT, "modern-reno-rack": K.FI_RACK,
               "modern-cubic-sack": K.FI_RACK}
    for name, column in options.items():  # (there, the options are on)
        c = scenarios.pop(name)
        assert np.any((c.ff if name == "modern-reno-sack-options" else c.fi)[:, column] != 0)
    for name, c in scenarios.items():
        assert np.all(c.ff[:, K.FF_DA_TIMEOUT] == 0.0), name
        fi = c.fi[:, K.FI_DA_M:]
        off = [1, 0, 0, 0, 0, -1, 0, 0]  # M, HELD, CE, DCTCP, HIGH, SLOT, GROW_PACKETS, RACK
        assert fi.shape[1] == len(off)
        np.testing.assert_array_equal(fi, np.tile(off, (fi.shape[0], 1)), err_msg=name)
        # the parameter rows' added column: no fingerprint scenario reissues tickets, and no
        # other mechanism packs that many parameters
        for field in ("lf", "ff", "ef"):
            start = _param_rows(field)
            extra = getattr(c, field)[:, start + STORED_PARAM_ROW:start + K.PARAM_ROW]
            assert np.all(extra == 0.0), (name, field)


@pytest.fixture(scope="module")
def now():
    return digests()


def test_every_scenario_and_field_is_compared(now):
    # the fingerprint's modern-mechanism scenarios came after the digests (90fa7e3 had none
    # of those mechanisms): every stored scenario is compared, and they are the only others
    stored = json.loads(DATA.read_text())
    assert set(stored) <= set(now)
    assert all(name.startswith("modern-") for name in set(now) - set(stored))
    assert len(stored) == 4 + 8 + 40
    for name in stored:
        assert sorted(stored[name]) == sorted(Compiled._fields), name


def test_compiled_arrays_are_byte_identical_to_the_stored_digests(now):
    stored = json.loads(DATA.read_text())
    differ = [f"{name}.{field}" for name in stored for field in stored[name]
              if now.get(name, {}).get(field) != stored[name][field]]
    assert differ == []


def test_the_digest_sees_a_one_byte_change():
    a = np.zeros((3, 4))
    b = a.copy()
    b[2, 3] = 1e-300
    assert digest(a) != digest(b)
    assert digest(a) != digest(a.reshape(4, 3))  # shape counts
    assert digest(a) != digest(a.astype(np.int64))  # dtype counts


# ------------------------------------------------------------------ the route rules
# (``QueueSpec.check_crossing`` and ``SourceSpec.check_route``, which compile_scenario asks)

def _compile(links, flows):
    from qosmodels import Network

    return compile_scenario(Network(links, flows), 1.0, seed=0)


def test_a_priority_class_the_reverse_link_lacks_is_refused():
    # the data cross a FIFO; only the ACKs cross the Priority queue of the declared reverse link
    from qosmodels import Flow, Link
    from qosmodels.sim import Priority, TcpReno

    links = [Link("a", "b", 1e6, 0.01), Link("b", "a", 1e6, 0.01, queue=Priority(classes=2))]
    with pytest.raises(ScenarioError, match=r"flow 'f0' uses priority class 2, but link "
                                            r"'b->a' has a Priority queue of 2 classes"):
        _compile(links, [Flow(["a", "b"], source=TcpReno(priority=2))])
    _compile(links, [Flow(["a", "b"], source=TcpReno(priority=1))])


def test_green_packets_without_a_colour_aware_queue_are_refused():
    from qosmodels import Flow, Link
    from qosmodels.sim import AbeQueue, Cbr

    flows = [Flow(["a", "b", "c"], source=Cbr(rate=1e5)),
             Flow(["a", "b", "c"], source=Cbr(rate=1e5, green=True))]
    links = [Link("a", "b", 1e6, 0.01), Link("b", "c", 1e6, 0.01)]
    with pytest.raises(ScenarioError, match=r"flow 'f1' sends Green packets.*no link on its "
                                            r"route has an AbeQueue.*green=False"):
        _compile(links, flows)
    links[1] = Link("b", "c", 1e6, 0.01, queue=AbeQueue())  # one on the route will do
    _compile(links, flows)


def test_the_route_rules_are_the_specs():
    from qosmodels.sim import Decbit, DecbitWindow, DropTail, Priority, TcpReno

    Priority(classes=3).check_crossing(TcpReno(priority=2), "f", "l")
    with pytest.raises(ScenarioError, match=r"flow 'f' uses priority class 3, but link 'l'"):
        Priority(classes=3).check_crossing(TcpReno(priority=3), "f", "l")
    DropTail().check_crossing(TcpReno(priority=7), "f", "l")  # one class: any priority
    DecbitWindow().check_route("f", [DropTail(), Decbit()])
    with pytest.raises(ScenarioError, match=r"flow 'f' has a DecbitWindow source"):
        DecbitWindow().check_route("f", [DropTail(), DropTail()])
    TcpReno().check_route("f", [])


def test_out_of_band_lanes_at_every_link_a_monaco_flow_crosses_either_way():
    # by hand: a->b and b->a carry one Monaco flow each way (two lanes of 2 * 1 + 2),
    # b->c two Monaco flows (2 * 2 + 2), c->d none; the lanes follow the links' slots
    from qosmodels import Flow, Link
    from qosmodels.sim import Accumulation, Cbr
    from qosmodels.sim._kernels import layout as K

    links = [Link("a", "b", 1e6, 0.01, buffer=10), Link("b", "a", 1e6, 0.01, buffer=20),
             Link("b", "c", 1e6, 0.01, buffer=30), Link("c", "d", 1e6, 0.01, buffer=40)]
    monaco = Accumulation(control="P", estimator="monaco", kappa=0.5, target=3000)
    c = _compile(links, [Flow(["a", "b", "c"], source=monaco),
                         Flow(["b", "c"], source=monaco),
                         Flow(["c", "d"], source=Cbr(rate=1e5))])
    assert list(c.li[:, K.LI_OOB]) == [4, 5, 6, -1]
    assert [tuple(c.slot[s, [K.SL_OFF, K.SL_CAP]]) for s in (4, 5, 6)] == [(100, 4), (104, 4), (108, 6)]
    assert c.slot.shape[0] == 7 and c.ring.shape[0] == 100 + 4 + 4 + 6


if __name__ == "__main__" and sys.argv[1:] == ["write"]:
    DATA.write_text(json.dumps(digests(), indent=1, sort_keys=True) + "\n")
    print(f"written {DATA}")
