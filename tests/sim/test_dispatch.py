"""The contract between the specs (``qosmodels.mechanisms``) and the kernel modules.

Every spec names a kernel module that ``dispatch`` knows; the module's
``PARAMS`` names real fields of the spec and fits the parameter row; its
named column constants say where ``pack_params`` puts each field; codes are
unique; and the layers stay apart: describing a network loads neither the
simulator nor Numba, the kernels import nothing above them, and no kernel
function grows past 250 lines (issue 10: a reader takes a handler in at once).
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import math
import pkgutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import qosmodels.mechanisms as M
from qosmodels.mechanisms import (
    AbeQueue,
    Accumulation,
    AggregateBucket,
    Avq,
    BbrV1,
    Cbr,
    Codel,
    Cubic,
    Dctcp,
    Decbit,
    DecbitWindow,
    DropTail,
    Drr,
    DualPi2,
    EdgeSpec,
    Ered,
    FairQueueing,
    FqCodel,
    GenericWindow,
    OnOff,
    Pi,
    Pie,
    Poisson,
    Prague,
    Priority,
    ProfileMarker,
    QueueSpec,
    RandomLoss,
    Rap,
    Red,
    Rio,
    SourceSpec,
    Spec,
    TcpFriendly,
    TcpNewReno,
    TcpReno,
    TcpTahoe,
    TcpVegas,
    TicketRed,
    TicketTagger,
    WebTraffic,
)
from qosmodels.sim import _kernels
from qosmodels.sim._kernels import dispatch, dispatch_edges, layout
from qosmodels.sim._kernels.edges import profile_marker, ticket_tagger, token_bucket
from qosmodels.sim._kernels.queues import (
    abe,
    avq,
    codel,
    decbit,
    droptail,
    drr,
    dualpi2,
    ered,
    fair_queueing,
    fqcodel,
    pi,
    pie,
    priority,
    random_loss,
    red,
    rio,
    ticket_red,
)
from qosmodels.sim._kernels.sources import (
    accumulation,
    bbr,
    cbr,
    cubic,
    dctcp,
    onoff,
    poisson,
    prague,
    rap,
    reno,
    tahoe,
    tcp_friendly,
    vegas,
    web,
    window,
)
from qosmodels.sim._kernels.sources import decbit as decbit_window
from qosmodels.sim.compile import kernel_module, pack_params

KERNELS = Path(_kernels.__file__).parent
MAX_FUNCTION_LINES = 250


def _spec_classes() -> list[type]:
    """Every concrete spec class defined in a module of ``qosmodels.mechanisms``."""
    found = []
    for info in pkgutil.iter_modules(M.__path__, M.__name__ + "."):
        mod = importlib.import_module(info.name)
        for obj in vars(mod).values():
            if (isinstance(obj, type) and issubclass(obj, Spec) and dataclasses.is_dataclass(obj)
                    and obj.__module__ == mod.__name__ and hasattr(obj, "kernel")):
                found.append(obj)
    return sorted(found, key=lambda c: c.__name__)


SPECS = _spec_classes()

#: Arguments of the spec classes that have required fields.
REQUIRED = {"AggregateBucket": {"rate": 1e6, "depth": 20_000}, "ProfileMarker": {"profile": 1e6}}


def _example(cls):
    """An instance of ``cls`` built from its defaults (and :data:`REQUIRED`)."""
    return cls(**REQUIRED.get(cls.__name__, {}))


def _tables():
    return {"QUEUES": dispatch.QUEUES, "SOURCES": dispatch.SOURCES, "EDGES": dispatch_edges.EDGES}


def _table(cls) -> dict:
    """The dispatch table a spec class's kernel module must be in."""
    if issubclass(cls, QueueSpec):
        return dispatch.QUEUES
    if issubclass(cls, SourceSpec):
        return dispatch.SOURCES
    if issubclass(cls, EdgeSpec):
        return dispatch_edges.EDGES
    raise AssertionError(f"{cls.__name__} is neither a queue, a source nor an edge spec")


def test_the_spec_classes_are_found_and_exported():
    names = {c.__name__ for c in SPECS}
    assert {"DropTail", "Red", "Priority", "RandomLoss", "TcpReno", "TcpNewReno",
            "GenericWindow", "Cbr", "Poisson", "OnOff"} <= names
    assert names <= set(M.__all__), f"spec classes missing from __all__: {names - set(M.__all__)}"


@pytest.mark.parametrize("cls", SPECS, ids=lambda c: c.__name__)
def test_spec_names_a_kernel_module_that_dispatch_knows(cls):
    table = _table(cls)
    spec = _example(cls)  # ``kernel`` and ``kind`` may depend on the fields (Decbit(fq_bit=True))
    assert spec.kernel in table, f"{cls.__name__}.kernel = {spec.kernel!r} is not in {sorted(table)}"
    assert kernel_module(spec) is table[spec.kernel]
    assert isinstance(spec.kind, str) and spec.kind


@pytest.mark.parametrize("table", ["QUEUES", "SOURCES", "EDGES"])
def test_dispatch_tables_name_their_modules_and_cover_their_folders(table):
    mods = _tables()[table]
    for key, mod in mods.items():
        assert mod.__name__ == f"{_kernels.__name__}.{key}"
    folder = table.lower()
    on_disk = {f"{folder}.{p.stem}" for p in (KERNELS / folder).glob("*.py")
               if p.stem != "__init__"}
    assert on_disk == set(mods), f"kernel modules not in dispatch.{table}: {on_disk - set(mods)}"


@pytest.mark.parametrize("cls", SPECS, ids=lambda c: c.__name__)
def test_params_are_fields_of_the_spec_and_fit_the_row(cls):
    spec = _example(cls)
    kmod = _table(cls)[spec.kernel]
    fields = {f.name for f in dataclasses.fields(cls)}
    assert isinstance(kmod.PARAMS, tuple)
    assert len(kmod.PARAMS) <= layout.PARAM_ROW, (
        f"{kmod.__name__}.PARAMS has {len(kmod.PARAMS)} entries, the row {layout.PARAM_ROW}")
    for entry in kmod.PARAMS:
        if isinstance(entry, str):
            assert entry in fields, (
                f"{kmod.__name__}.PARAMS: {entry!r} is no field of {cls.__name__}")
        else:
            assert isinstance(entry, tuple) and len(entry) == 2, entry
            label, fn = entry
            assert isinstance(label, str) and callable(fn), entry
            value = fn(spec)
            assert value is None or np.isfinite(float(value)), (label, value)


@pytest.mark.parametrize("table", ["QUEUES", "SOURCES", "EDGES"])
def test_codes_are_unique_small_integers(table):
    codes = {key: mod.CODE for key, mod in _tables()[table].items()}
    assert all(isinstance(c, int) and c >= 0 for c in codes.values()), codes
    assert len(set(codes.values())) == len(codes), f"{table} codes collide: {codes}"


#: Examples of the source kernels a spec names only for some field values (``sack=True``,
#: ``rack=True``)
FIELD_KERNELS = [TcpNewReno(sack=True), Cubic(sack=True), TcpNewReno(sack=True, rack=True),
                 Cubic(sack=True, rack=True)]


def test_sources_set_their_flows_up():
    for key, mod in dispatch.SOURCES.items():
        spec = next(s for s in [_example(cls) for cls in SPECS] + FIELD_KERNELS
                    if s.kernel == key)
        ff = np.zeros(layout.N_FF)
        fi = np.zeros(layout.N_FI, dtype=np.int64)
        w = mod.setup(spec, ff, fi)
        assert int(w) == w and w >= 0, (key, w)


#: (spec, [(column constant, value), ...]): every column of the module's PARAMS, named.
PACK_CASES = [
    (DropTail(), [(droptail.DT_MARK_THRESHOLD, -1)]),
    (DropTail(mark_threshold=0), [(droptail.DT_MARK_THRESHOLD, 0)]),
    (DropTail(mark_threshold=20), [(droptail.DT_MARK_THRESHOLD, 20)]),
    (Red(ecn=True),
     [(red.RED_MIN_TH, 5), (red.RED_MAX_TH, 15), (red.RED_MAX_P, 0.1), (red.RED_W_Q, 0.002),
      (red.RED_GENTLE, 0), (red.RED_MARK, 1), (red.RED_TYPICAL_SIZE, 1000)]),
    (Red(min_th=3, max_th=9, max_p=0.25, w_q=0.01, gentle=True, typical_packet_size=1500),
     [(red.RED_MIN_TH, 3), (red.RED_MAX_TH, 9), (red.RED_MAX_P, 0.25), (red.RED_W_Q, 0.01),
      (red.RED_GENTLE, 1), (red.RED_MARK, 0), (red.RED_TYPICAL_SIZE, 1500)]),
    (Red(mark=True),
     [(red.RED_MIN_TH, 5), (red.RED_MAX_TH, 15), (red.RED_MAX_P, 0.1), (red.RED_W_Q, 0.002),
      (red.RED_GENTLE, 0), (red.RED_MARK, 1), (red.RED_TYPICAL_SIZE, 1000)]),
    (Ered(min_th=2, max_th=8, max_p=0.3, w_q=0.05, gentle=True, mark=True, marked_factor=2.5),
     [(red.RED_MIN_TH, 2), (red.RED_MAX_TH, 8), (red.RED_MAX_P, 0.3), (red.RED_W_Q, 0.05),
      (red.RED_GENTLE, 1), (red.RED_MARK, 1), (red.RED_TYPICAL_SIZE, 1000),
      (ered.ERED_MARKED_FACTOR, 2.5)]),
    (Priority(classes=5), [(priority.PRIO_CLASSES, 5)]),
    (RandomLoss(0.07), [(random_loss.LOSS_P, 0.07), (random_loss.LOSS_PERIODIC, 0)]),
    (RandomLoss(0.25, periodic=True), [(random_loss.LOSS_P, 0.25), (random_loss.LOSS_PERIODIC, 1)]),
    (FairQueueing(delta=125), [(fair_queueing.FQ_DELTA, 1000), (fair_queueing.FQ_BIT, 0),
                               (fair_queueing.FQ_ROLLBACK, 0)]),
    (FairQueueing(charge_drops=False), [(fair_queueing.FQ_DELTA, 0), (fair_queueing.FQ_BIT, 0),
                                        (fair_queueing.FQ_ROLLBACK, 1)]),
    (Decbit(fq_bit=True), [(fair_queueing.FQ_DELTA, 0), (fair_queueing.FQ_BIT, 1),
                           (fair_queueing.FQ_ROLLBACK, 0)]),
    (Decbit(selective=True, capacity_factor=0.8),
     [(decbit.DEC_SELECTIVE, 1), (decbit.DEC_CAPACITY_FACTOR, 0.8)]),
    (TcpReno(max_window=77, initial_window=3, initial_ssthresh=12, min_rto=0.3, max_rto=30,
             initial_rto=2, ecn=True, timer="slow-but-steady"),
     [(reno.TCP_MAX_WINDOW, 77), (reno.TCP_INIT_WINDOW, 3), (reno.TCP_INIT_SSTHRESH, 12),
      (reno.TCP_MIN_RTO, 0.3), (reno.TCP_MAX_RTO, 30), (reno.TCP_INIT_RTO, 2), (reno.TCP_ECN, 1),
      (reno.TCP_RTT_PER_ACK, 0), (reno.TCP_TIMER, reno.TIMER_SLOW),
      (reno.TCP_RECOVERY, reno.RECOVERY_INFLATION), (reno.TCP_SEGMENT, 0), (reno.TCP_NEWRENO, 0),
      (reno.TCP_SACK, 0), (reno.TCP_PRR, 0)]),
    (TcpNewReno(sack=True, sack_blocks=4, prr=True, prr_bound="crb"),
     [(reno.TCP_MAX_WINDOW, 1000), (reno.TCP_INIT_WINDOW, 1), (reno.TCP_INIT_SSTHRESH, 0),
      (reno.TCP_MIN_RTO, 0.2), (reno.TCP_MAX_RTO, 60), (reno.TCP_INIT_RTO, 1), (reno.TCP_ECN, 0),
      (reno.TCP_RTT_PER_ACK, 0), (reno.TCP_TIMER, reno.TIMER_REFERENCE),
      (reno.TCP_RECOVERY, reno.RECOVERY_INFLATION), (reno.TCP_SEGMENT, 0), (reno.TCP_NEWRENO, 1),
      (reno.TCP_SACK, 4), (reno.TCP_PRR, 2)]),
    (TcpNewReno(max_window=40, rtt_samples="ack", timer="impatient", recovery="pipe",
                window_arithmetic="bytes", segment_size=958),
     [(reno.TCP_MAX_WINDOW, 40), (reno.TCP_INIT_WINDOW, 1), (reno.TCP_INIT_SSTHRESH, 0),
      (reno.TCP_MIN_RTO, 0.2), (reno.TCP_MAX_RTO, 60), (reno.TCP_INIT_RTO, 1), (reno.TCP_ECN, 0),
      (reno.TCP_RTT_PER_ACK, 1), (reno.TCP_TIMER, reno.TIMER_IMPATIENT),
      (reno.TCP_RECOVERY, reno.RECOVERY_PIPE), (reno.TCP_SEGMENT, 958), (reno.TCP_NEWRENO, 1),
      (reno.TCP_SACK, 0), (reno.TCP_PRR, 0)]),
    (TcpVegas(max_window=50, alpha=1, beta=3, gamma=2, loss_rule="ns-3", recovery="pipe"),
     [(reno.TCP_MAX_WINDOW, 50), (reno.TCP_INIT_WINDOW, 1), (reno.TCP_INIT_SSTHRESH, 0),
      (reno.TCP_MIN_RTO, 0.2), (reno.TCP_MAX_RTO, 60), (reno.TCP_INIT_RTO, 1), (reno.TCP_ECN, 0),
      (reno.TCP_RTT_PER_ACK, 1), (reno.TCP_TIMER, reno.TIMER_REFERENCE),
      (reno.TCP_RECOVERY, reno.RECOVERY_PIPE), (reno.TCP_SEGMENT, 0), (reno.TCP_NEWRENO, 1),
      (vegas.VEGAS_ALPHA, 1), (vegas.VEGAS_BETA, 3), (vegas.VEGAS_GAMMA, 2),
      (vegas.VEGAS_FLAGS, vegas.FLAG_NS3_LOSS)]),
    (TcpVegas(rtt_estimate="smoothed", timer="impatient"),
     [(reno.TCP_MAX_WINDOW, 1000), (reno.TCP_INIT_WINDOW, 1), (reno.TCP_INIT_SSTHRESH, 0),
      (reno.TCP_MIN_RTO, 0.2), (reno.TCP_MAX_RTO, 60), (reno.TCP_INIT_RTO, 1), (reno.TCP_ECN, 0),
      (reno.TCP_RTT_PER_ACK, 1), (reno.TCP_TIMER, reno.TIMER_IMPATIENT),
      (reno.TCP_RECOVERY, reno.RECOVERY_INFLATION), (reno.TCP_SEGMENT, 0), (reno.TCP_NEWRENO, 1),
      (vegas.VEGAS_ALPHA, 2), (vegas.VEGAS_BETA, 4), (vegas.VEGAS_GAMMA, 1),
      (vegas.VEGAS_FLAGS, vegas.FLAG_SMOOTHED)]),
    (WebTraffic(mean_size=6000, shape=1.5, think_time=2.5, initial_window=2),
     [(reno.TCP_MAX_WINDOW, 1000), (reno.TCP_INIT_WINDOW, 2), (reno.TCP_INIT_SSTHRESH, 0),
      (reno.TCP_MIN_RTO, 0.2), (reno.TCP_MAX_RTO, 60), (reno.TCP_INIT_RTO, 1), (reno.TCP_ECN, 0),
      (reno.TCP_RTT_PER_ACK, 0), (reno.TCP_TIMER, reno.TIMER_REFERENCE),
      (reno.TCP_RECOVERY, reno.RECOVERY_INFLATION), (reno.TCP_SEGMENT, 0), (reno.TCP_NEWRENO, 1),
      (web.WEB_SCALE, 2000), (web.WEB_SHAPE, 1.5), (web.WEB_THINK, 2.5)]),
    (TcpTahoe(max_window=5, initial_window=2, initial_ssthresh=4, min_rto=0.5, max_rto=32,
              initial_rto=3, rto_k=4, max_backoff=16, dupack_threshold=2),
     [(tahoe.THO_MAX_WINDOW, 5), (tahoe.THO_INIT_WINDOW, 2), (tahoe.THO_INIT_SSTHRESH, 4),
      (tahoe.THO_MIN_RTO, 0.5), (tahoe.THO_MAX_RTO, 32), (tahoe.THO_INIT_RTO, 3),
      (tahoe.THO_RTO_K, 4), (tahoe.THO_MAX_BACKOFF, 16), (tahoe.THO_DUPACK_THRESHOLD, 2)]),
    (Dctcp(max_window=64, g=0.125, initial_alpha=0.5, record_alpha=True),
     [(reno.TCP_MAX_WINDOW, 64), (reno.TCP_INIT_WINDOW, 1), (reno.TCP_INIT_SSTHRESH, 0),
      (reno.TCP_MIN_RTO, 0.2), (reno.TCP_MAX_RTO, 60), (reno.TCP_INIT_RTO, 1), (reno.TCP_ECN, 1),
      (reno.TCP_RTT_PER_ACK, 0), (reno.TCP_TIMER, reno.TIMER_REFERENCE),
      (reno.TCP_RECOVERY, reno.RECOVERY_INFLATION), (reno.TCP_SEGMENT, 0), (reno.TCP_NEWRENO, 1),
      (dctcp.DC_G, 0.125), (dctcp.DC_INIT_ALPHA, 0.5)]),
    (Dctcp(),
     [(reno.TCP_MAX_WINDOW, 1000), (reno.TCP_INIT_WINDOW, 1), (reno.TCP_INIT_SSTHRESH, 0),
      (reno.TCP_MIN_RTO, 0.2), (reno.TCP_MAX_RTO, 60), (reno.TCP_INIT_RTO, 1), (reno.TCP_ECN, 1),
      (reno.TCP_RTT_PER_ACK, 0), (reno.TCP_TIMER, reno.TIMER_REFERENCE),
      (reno.TCP_RECOVERY, reno.RECOVERY_INFLATION), (reno.TCP_SEGMENT, 0), (reno.TCP_NEWRENO, 1),
      (dctcp.DC_G, 0.0625), (dctcp.DC_INIT_ALPHA, 1)]),
    (Prague(pacing_ss_ratio=3.0, pacing_ca_ratio=1.5),
     [(reno.TCP_MAX_WINDOW, 1000), (reno.TCP_INIT_WINDOW, 1), (reno.TCP_INIT_SSTHRESH, 0),
      (reno.TCP_MIN_RTO, 0.2), (reno.TCP_MAX_RTO, 60), (reno.TCP_INIT_RTO, 1), (reno.TCP_ECN, 1),
      (reno.TCP_RTT_PER_ACK, 0), (reno.TCP_TIMER, reno.TIMER_REFERENCE),
      (reno.TCP_RECOVERY, reno.RECOVERY_INFLATION), (reno.TCP_SEGMENT, 0), (reno.TCP_NEWRENO, 1),
      (dctcp.DC_G, 0.0625), (dctcp.DC_INIT_ALPHA, 1), (prague.PR_PACE_SS, 3.0),
      (prague.PR_PACE_CA, 1.5)]),
    (Prague(pacing=False),
     [(reno.TCP_MAX_WINDOW, 1000), (reno.TCP_INIT_WINDOW, 1), (reno.TCP_INIT_SSTHRESH, 0),
      (reno.TCP_MIN_RTO, 0.2), (reno.TCP_MAX_RTO, 60), (reno.TCP_INIT_RTO, 1), (reno.TCP_ECN, 1),
      (reno.TCP_RTT_PER_ACK, 0), (reno.TCP_TIMER, reno.TIMER_REFERENCE),
      (reno.TCP_RECOVERY, reno.RECOVERY_INFLATION), (reno.TCP_SEGMENT, 0), (reno.TCP_NEWRENO, 1),
      (dctcp.DC_G, 0.0625), (dctcp.DC_INIT_ALPHA, 1), (prague.PR_PACE_SS, 0.0),
      (prague.PR_PACE_CA, 0.0)]),
    (TcpTahoe(),
     [(tahoe.THO_MAX_WINDOW, 1000), (tahoe.THO_INIT_WINDOW, 1), (tahoe.THO_INIT_SSTHRESH, 0),
      (tahoe.THO_MIN_RTO, 1), (tahoe.THO_MAX_RTO, 64), (tahoe.THO_INIT_RTO, 6),
      (tahoe.THO_RTO_K, 2), (tahoe.THO_MAX_BACKOFF, 64), (tahoe.THO_DUPACK_THRESHOLD, 3)]),
    (Cubic(c=0.04, beta=0.5, fast_convergence=False, tcp_friendliness=False, max_window=64,
           initial_window=2, initial_ssthresh=8, min_rto=0.3, max_rto=20, initial_rto=2,
           rtt_samples="ack", record=True, timer="slow-but-steady"),
     [(cubic.CUB_MAX_WINDOW, 64), (cubic.CUB_INIT_WINDOW, 2), (cubic.CUB_INIT_SSTHRESH, 8),
      (cubic.CUB_MIN_RTO, 0.3), (cubic.CUB_MAX_RTO, 20), (cubic.CUB_INIT_RTO, 2),
      (cubic.CUB_C, 0.04), (cubic.CUB_BETA, 0.5), (cubic.CUB_FAST_CONV, 0),
      (cubic.CUB_FRIENDLY, 0), (cubic.CUB_RTT_PER_ACK, 1), (cubic.CUB_RECORD, 1),
      (cubic.CUB_SACK, 0), (cubic.CUB_PRR, 0), (cubic.CUB_TIMER, 2)]),
    (Cubic(),
     [(cubic.CUB_MAX_WINDOW, 1000), (cubic.CUB_INIT_WINDOW, 1), (cubic.CUB_INIT_SSTHRESH, 0),
      (cubic.CUB_MIN_RTO, 0.2), (cubic.CUB_MAX_RTO, 60), (cubic.CUB_INIT_RTO, 1),
      (cubic.CUB_C, 0.4), (cubic.CUB_BETA, 0.7), (cubic.CUB_FAST_CONV, 1),
      (cubic.CUB_FRIENDLY, 1), (cubic.CUB_RTT_PER_ACK, 0), (cubic.CUB_RECORD, 0),
      (cubic.CUB_SACK, 0), (cubic.CUB_PRR, 0), (cubic.CUB_TIMER, 0)]),
    (Cubic(sack=True, prr=True, timer="impatient"),
     [(cubic.CUB_MAX_WINDOW, 1000), (cubic.CUB_INIT_WINDOW, 1), (cubic.CUB_INIT_SSTHRESH, 0),
      (cubic.CUB_MIN_RTO, 0.2), (cubic.CUB_MAX_RTO, 60), (cubic.CUB_INIT_RTO, 1),
      (cubic.CUB_C, 0.4), (cubic.CUB_BETA, 0.7), (cubic.CUB_FAST_CONV, 1),
      (cubic.CUB_FRIENDLY, 1), (cubic.CUB_RTT_PER_ACK, 0), (cubic.CUB_RECORD, 0),
      (cubic.CUB_SACK, 3), (cubic.CUB_PRR, 1), (cubic.CUB_TIMER, 1)]),
    (BbrV1(high_gain=3.0, cwnd_gain=1.5, btlbw_rounds=6, rtprop_window=5.0,
           probe_rtt_time=0.3, min_pipe_cwnd=3, max_window=200, initial_window=4, min_rto=0.3,
           max_rto=20, initial_rto=2, record=True),
     [(bbr.BBR_MAX_WINDOW, 200), (bbr.BBR_INIT_WINDOW, 4), (bbr.BBR_MIN_RTO, 0.3),
      (bbr.BBR_MAX_RTO, 20), (bbr.BBR_INIT_RTO, 2), (bbr.BBR_HIGH_GAIN, 3.0),
      (bbr.BBR_CWND_GAIN, 1.5), (bbr.BBR_BW_ROUNDS, 6), (bbr.BBR_RTPROP_WIN, 5.0),
      (bbr.BBR_PROBE_RTT_TIME, 0.3), (bbr.BBR_MIN_CWND, 3), (bbr.BBR_RECORD, 1),
      (bbr.BBR_SACK, 0), (bbr.BBR_QUANTUM, 0)]),
    (BbrV1(send_quantum=1, sack=True),
     [(bbr.BBR_MAX_WINDOW, 1000), (bbr.BBR_INIT_WINDOW, 10), (bbr.BBR_MIN_RTO, 0.2),
      (bbr.BBR_MAX_RTO, 60), (bbr.BBR_INIT_RTO, 1), (bbr.BBR_HIGH_GAIN, 2 / math.log(2)),
      (bbr.BBR_CWND_GAIN, 2), (bbr.BBR_BW_ROUNDS, 10), (bbr.BBR_RTPROP_WIN, 10),
      (bbr.BBR_PROBE_RTT_TIME, 0.2), (bbr.BBR_MIN_CWND, 4), (bbr.BBR_RECORD, 0),
      (bbr.BBR_SACK, 3), (bbr.BBR_QUANTUM, 1)]),
    (GenericWindow(window=9, beta=3, rtt_gain=0.25, initial_rtt=0.4, priority=1),
     [(window.GEN_WINDOW, 9), (window.GEN_BETA, 3), (window.GEN_GAIN, 0.25),
      (window.GEN_INIT_RTT, 0.4)]),
    (DecbitWindow(max_window=7, initial_window=2.5, increase=2, decrease=0.5, threshold=0.75,
                  beta=3, rtt_gain=0.25, initial_rtt=0.4),
     [(decbit_window.DBW_MAX_WINDOW, 7), (decbit_window.DBW_BETA, 3),
      (decbit_window.DBW_GAIN, 0.25), (decbit_window.DBW_INIT_RTT, 0.4),
      (decbit_window.DBW_INIT_WINDOW, 2.5), (decbit_window.DBW_INCREASE, 2),
      (decbit_window.DBW_DECREASE, 0.5), (decbit_window.DBW_THRESHOLD, 0.75)]),
    (Poisson(rate=3e5, window=6, beta=2.5, rtt_gain=0.5, initial_rtt=0.3),
     [(window.GEN_WINDOW, 6), (window.GEN_BETA, 2.5), (window.GEN_GAIN, 0.5),
      (window.GEN_INIT_RTT, 0.3), (poisson.POI_RATE, 3e5)]),
    (Poisson(rate=2e5),
     [(window.GEN_WINDOW, 0), (window.GEN_BETA, 2), (window.GEN_GAIN, 0.125),
      (window.GEN_INIT_RTT, 1), (poisson.POI_RATE, 2e5)]),
    (Cbr(rate=4e5, priority=1), [(cbr.CBR_RATE, 4e5)]),
    (AggregateBucket(rate=8e5, depth=3e4, peak_rate=1.6e6, max_packet=1000, sharing="common",
                     order="lru", action="mark", timer=0.01),
     [(token_bucket.TB_RATE, 1e5), (token_bucket.TB_DEPTH, 3e4), (token_bucket.TB_PEAK, 2e5),
      (token_bucket.TB_LM, 1000), (token_bucket.TB_SHARING, token_bucket.SH_COMMON),
      (token_bucket.TB_ORDER, token_bucket.ORD_LRU), (token_bucket.TB_ACTION,
                                                      token_bucket.ACT_MARK),
      (token_bucket.TB_TIMER, 0.01), (token_bucket.TB_QUANTUM, 0)]),
    (AggregateBucket(rate=8e5, depth=3e4),
     [(token_bucket.TB_RATE, 1e5), (token_bucket.TB_DEPTH, 3e4), (token_bucket.TB_PEAK, 0),
      (token_bucket.TB_LM, 1500), (token_bucket.TB_SHARING, token_bucket.SH_LOGICAL),
      (token_bucket.TB_ORDER, 0), (token_bucket.TB_ACTION, token_bucket.ACT_SHAPE),
      (token_bucket.TB_TIMER, 0.015), (token_bucket.TB_QUANTUM, 0)]),
    (AggregateBucket(rate=8e5, depth=3e4, sharing="common", quantum=2),
     [(token_bucket.TB_RATE, 1e5), (token_bucket.TB_DEPTH, 3e4), (token_bucket.TB_PEAK, 0),
      (token_bucket.TB_LM, 1500), (token_bucket.TB_SHARING, token_bucket.SH_COMMON),
      (token_bucket.TB_ORDER, token_bucket.ORD_FCFS),
      (token_bucket.TB_ACTION, token_bucket.ACT_SHAPE), (token_bucket.TB_TIMER, 0.015),
      (token_bucket.TB_QUANTUM, 2)]),
    (Rio(min_in=30, max_in=60, max_p_in=0.05, min_out=5, max_out=25, max_p_out=0.4, w_q=0.01,
         gentle=True, typical_packet_size=1500),
     [(rio.RIO_MIN_IN, 30), (rio.RIO_MAX_IN, 60), (rio.RIO_MAX_P_IN, 0.05), (rio.RIO_MIN_OUT, 5),
      (rio.RIO_MAX_OUT, 25), (rio.RIO_MAX_P_OUT, 0.4), (rio.RIO_W_Q, 0.01), (rio.RIO_GENTLE, 1),
      (rio.RIO_TYPICAL_SIZE, 1500)]),
    (ProfileMarker(profile=[1e5, 2e5], window=0.25), [(profile_marker.PM_WINDOW, 0.25)]),
    (TicketRed(min_th=3, max_th=9, max_p=0.25, w_q=0.01, tickets=900, k=1.5, window=30,
               min_interval=2, exponent=4, rule="udp", police=True, bits=6, unit=0.5,
               reissue=(300, 450)),
     [(red.RED_MIN_TH, 3), (red.RED_MAX_TH, 9), (red.RED_MAX_P, 0.25), (red.RED_W_Q, 0.01),
      (red.RED_GENTLE, 0), (red.RED_MARK, 0), (red.RED_TYPICAL_SIZE, 1000),
      (ticket_red.TR_TICKETS, 900), (ticket_red.TR_K, 1.5), (ticket_red.TR_WINDOW, 30),
      (ticket_red.TR_MIN_INT, 2), (ticket_red.TR_EXP, 4),
      (ticket_red.TR_FLAGS, ticket_red.F_UDP | ticket_red.F_POLICE), (ticket_red.TR_LEVELS, 63),
      (ticket_red.TR_UNIT, 0.5), (ticket_red.TR_RE_AT, 300), (ticket_red.TR_RE_TICKETS, 450)]),
    (TicketRed(variant="receiver", bits=None),
     [(red.RED_MIN_TH, 5), (red.RED_MAX_TH, 15), (red.RED_MAX_P, 0.1), (red.RED_W_Q, 0.002),
      (red.RED_GENTLE, 0), (red.RED_MARK, 0), (red.RED_TYPICAL_SIZE, 1000),
      (ticket_red.TR_TICKETS, 0), (ticket_red.TR_K, 1.4), (ticket_red.TR_WINDOW, 60),
      (ticket_red.TR_MIN_INT, 1), (ticket_red.TR_EXP, 3),
      (ticket_red.TR_FLAGS, ticket_red.F_RECEIVER), (ticket_red.TR_LEVELS, 0),
      (ticket_red.TR_UNIT, 1), (ticket_red.TR_RE_AT, 0), (ticket_red.TR_RE_TICKETS, 0)]),
    (TicketTagger(tickets=300, window=10, bits=8, unit=0.25, police=True, variant="receiver"),
     [(ticket_tagger.TT_WINDOW, 10), (ticket_tagger.TT_LEVELS, 255), (ticket_tagger.TT_UNIT, 0.25),
      (ticket_tagger.TT_POLICE, 1), (ticket_tagger.TT_RECEIVER, 1)]),
    (OnOff(rate=3e6, on_time=0.2, off_time=0.7, exponential=False),
     [(onoff.ONOFF_RATE, 3e6), (onoff.ONOFF_ON, 0.2), (onoff.ONOFF_OFF, 0.7),
      (onoff.ONOFF_EXP, 0)]),
    (AbeQueue(beta_star=2.5, l0=7, blue_delay=0.3, rtt=0.2, k1=2.0, k2=0.9, gamma1=0.4,
              gamma2=0.6, period=0.25, max_th=30),
     [(red.RED_MIN_TH, 0), (red.RED_MAX_TH, 30), (red.RED_MAX_P, 0.2), (red.RED_W_Q, 0.02),
      (red.RED_GENTLE, 0), (red.RED_MARK, 0), (red.RED_TYPICAL_SIZE, 1000), (abe.AB_BETA, 2.5), (abe.AB_L0, 7), (abe.AB_D, 0.3), (abe.AB_RTT, 0.2), (abe.AB_K1, 2.0),
      (abe.AB_K2, 0.9), (abe.AB_G1, 0.4), (abe.AB_G2, 0.6), (abe.AB_T1, 0.25)]),
    (AbeQueue(alpha=1.5, k1=1.2),  # a fixed alpha: zero gains, no loop
     [(red.RED_MIN_TH, 0), (red.RED_MAX_TH, 40), (red.RED_MAX_P, 0.2), (red.RED_W_Q, 0.02),
      (red.RED_GENTLE, 0), (red.RED_MARK, 0), (red.RED_TYPICAL_SIZE, 1000), (abe.AB_BETA, 1.5),
      (abe.AB_L0, 10), (abe.AB_D, 0.1), (abe.AB_RTT, 0.14), (abe.AB_K1, 0), (abe.AB_K2, 0),
      (abe.AB_G1, 0.3), (abe.AB_G2, 0.5), (abe.AB_T1, 0.5)]),
    (TcpFriendly(initial_rate=3.0), [(tcp_friendly.TF_INIT_RATE, 3.0),
                                     (tcp_friendly.TF_EVENTS, 1), (tcp_friendly.TF_RFC, 0)]),
    (TcpFriendly(loss="packets", equation="rfc5348"),
     [(tcp_friendly.TF_INIT_RATE, 1.0), (tcp_friendly.TF_EVENTS, 0), (tcp_friendly.TF_RFC, 1)]),
    (Rap(beta=0.75, fine_grain=True), [(rap.RAP_BETA, 0.75), (rap.RAP_FINE, 1)]),
    (Rap(), [(rap.RAP_BETA, 0.5), (rap.RAP_FINE, 0)]),
    (Accumulation(control="MW", estimator="vegas-k", kappa=0.3, target=2000, k=5,
                  rtt_error=-0.002, max_window=80, beta=3, rtt_gain=0.25, initial_rtt=0.4),
     [(accumulation.ACC_MAX_WINDOW, 80), (window.GEN_BETA, 3), (window.GEN_GAIN, 0.25),
      (window.GEN_INIT_RTT, 0.4), (accumulation.ACC_CONTROL, accumulation.CTRL_MW),
      (accumulation.ACC_ESTIMATOR, accumulation.EST_VEGAS_K), (accumulation.ACC_KAPPA, 0.3),
      (accumulation.ACC_TARGET, 2000), (accumulation.ACC_K, 5),
      (accumulation.ACC_RTT_ERROR, -0.002), (accumulation.ACC_CTRL_BITS, 0),
      (accumulation.ACC_ECHO_ONLY, 0)]),
    (Accumulation(estimator="monaco", control_size=1000, timeout_halves=False),
     [(accumulation.ACC_MAX_WINDOW, 1000), (window.GEN_BETA, 2), (window.GEN_GAIN, 0.125),
      (window.GEN_INIT_RTT, 1.0), (accumulation.ACC_CONTROL, accumulation.CTRL_P),
      (accumulation.ACC_ESTIMATOR, accumulation.EST_MONACO), (accumulation.ACC_KAPPA, 0.5),
      (accumulation.ACC_TARGET, 3000), (accumulation.ACC_K, 8),
      (accumulation.ACC_RTT_ERROR, 0.0), (accumulation.ACC_CTRL_BITS, 8000),
      (accumulation.ACC_ECHO_ONLY, 1)]),
    (Avq(gamma=0.9, alpha=0.2, mark=True, typical_packet_size=1500),
     [(avq.AVQ_GAMMA, 0.9), (avq.AVQ_ALPHA, 0.2), (avq.AVQ_MARK, 1), (avq.AVQ_TYPICAL, 1500),
      (avq.AVQ_AVD, 0)]),
    (Avq(avd=True),
     [(avq.AVQ_GAMMA, 0.98), (avq.AVQ_ALPHA, 0.15), (avq.AVQ_MARK, 0), (avq.AVQ_TYPICAL, 1000),
      (avq.AVQ_AVD, 1)]),
    (Codel(target=0.01, interval=0.2, mtu=9000, mark=True),
     [(codel.CD_TARGET, 0.01), (codel.CD_INTERVAL, 0.2), (codel.CD_MTU, 9000),
      (codel.CD_MARK, 1)]),
    (Codel(), [(codel.CD_TARGET, 0.005), (codel.CD_INTERVAL, 0.1), (codel.CD_MTU, 1500),
               (codel.CD_MARK, 0)]),
    (Drr(quantum=1500), [(drr.DR_QUANTUM, 1500)]),
    (Drr(), [(drr.DR_QUANTUM, 0)]),
    (FqCodel(quantum=300, target=0.01, interval=0.2, mtu=9000, ecn=True, flows=8),
     [(fqcodel.FQ_TARGET, 0.01), (fqcodel.FQ_INTERVAL, 0.2), (fqcodel.FQ_MTU, 9000),
      (fqcodel.FQ_ECN, 1), (fqcodel.FQ_QUANTUM, 300)]),
    (FqCodel(), [(fqcodel.FQ_TARGET, 0.005), (fqcodel.FQ_INTERVAL, 0.1),
                 (fqcodel.FQ_MTU, 1514), (fqcodel.FQ_ECN, 0), (fqcodel.FQ_QUANTUM, 1514)]),
    (Pie(target=0.02, t_update=0.03, alpha=0.0625, beta=1.5, max_burst=0.1,
         mean_packet_size=1000, ecn=True, dq_rate_estimator=True),
     [(pie.PE_TARGET, 0.02), (pie.PE_T_UPDATE, 0.03), (pie.PE_ALPHA, 0.0625),
      (pie.PE_BETA, 1.5), (pie.PE_MAX_BURST, 0.1), (pie.PE_MEAN_PKT, 1000), (pie.PE_ECN, 1),
      (pie.PE_DQ_RATE, 1)]),
    (Pie(), [(pie.PE_TARGET, 0.015), (pie.PE_T_UPDATE, 0.015), (pie.PE_ALPHA, 0.125),
             (pie.PE_BETA, 1.25), (pie.PE_MAX_BURST, 0.15), (pie.PE_MEAN_PKT, 1500),
             (pie.PE_ECN, 0), (pie.PE_DQ_RATE, 0)]),
    (Pi(a=2e-5, b=1e-5, sampling_rate=160, q_ref=200, ecn=True),
     [(pi.PQ_A, 2e-5), (pi.PQ_B, 1e-5), (pi.PQ_RATE, 160), (pi.PQ_QREF, 200),
      (pi.PQ_ECN, 1)]),
    (Pi(), [(pi.PQ_A, 1.822e-5), (pi.PQ_B, 1.816e-5), (pi.PQ_RATE, 170), (pi.PQ_QREF, 50),
            (pi.PQ_ECN, 0)]),
    (DualPi2(target=0.02, t_update=0.01, alpha=0.1, beta=2.0, k=1.5, min_th=0.001, range=0.0,
             th_len=3, tshift=0.03),
     [(dualpi2.DP_TARGET, 0.02), (dualpi2.DP_T_UPDATE, 0.01), (dualpi2.DP_ALPHA, 0.1),
      (dualpi2.DP_BETA, 2.0), (dualpi2.DP_K, 1.5), (dualpi2.DP_MIN_TH, 0.001),
      (dualpi2.DP_RANGE, 0.0), (dualpi2.DP_TH_LEN, 3), (dualpi2.DP_TSHIFT, 0.03),
      (dualpi2.DP_SCHED, 0), (dualpi2.DP_W_C, 0.0)]),
    (DualPi2(scheduler="wrr", c_protection=0.2),
     [(dualpi2.DP_TARGET, 0.015), (dualpi2.DP_T_UPDATE, 0.016), (dualpi2.DP_ALPHA, 0.16),
      (dualpi2.DP_BETA, 3.2), (dualpi2.DP_K, 2.0), (dualpi2.DP_MIN_TH, 800e-6),
      (dualpi2.DP_RANGE, 400e-6), (dualpi2.DP_TH_LEN, 1), (dualpi2.DP_TSHIFT, 0.05),
      (dualpi2.DP_SCHED, dualpi2.SCHED_WRR), (dualpi2.DP_W_C, 0.2)]),
]


def test_every_spec_has_a_packing_case():
    assert {type(s) for s, _ in PACK_CASES} == set(SPECS)


@pytest.mark.parametrize("spec, columns", PACK_CASES,
                         ids=[f"{type(s).__name__}-{i}" for i, (s, _) in enumerate(PACK_CASES)])
def test_pack_params_puts_each_field_in_its_named_column(spec, columns):
    kmod = kernel_module(spec)
    cols = [c for c, _ in columns]
    # the named constants are the row's columns 0 .. len(PARAMS) - 1, each once
    assert sorted(cols) == list(range(len(kmod.PARAMS))), (kmod.__name__, cols)
    expected = np.zeros(layout.PARAM_ROW)
    for c, v in columns:
        expected[c] = v
    np.testing.assert_array_equal(pack_params(spec), expected)


# ------------------------------------------------------------------ layers
@pytest.mark.parametrize("module", ["qosmodels.network", "qosmodels.mechanisms"])
def test_describing_loads_neither_the_simulator_nor_numba(module):
    code = (f"import sys, {module}; "
            "print(sorted(m for m in sys.modules if m == 'numba' or m.startswith('numba.') "
            "or m == 'qosmodels.sim' or m.startswith('qosmodels.sim.')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]", f"import {module} loaded {proc.stdout.strip()}"


#: Packages a kernel module must not import: the layers above the kernels.
_ABOVE = ("qosmodels.network", "qosmodels.mechanisms", "qosmodels.experiments")


def _module_name(path: Path) -> str:
    parts = path.relative_to(KERNELS).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((_kernels.__name__, *parts))


def _upward_imports(source: str, name: str, is_package: bool = False) -> list[str]:
    """The modules above the kernels that module ``name`` (source ``source``) imports."""
    package = name if is_package else name.rpartition(".")[0]
    targets = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - (node.level - 1)])
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module
            targets += [base] + [f"{base}.{a.name}" for a in node.names]
    bad = []
    for t in targets:
        in_sim = t == "qosmodels.sim" or t.startswith("qosmodels.sim.")
        in_kernels = t == _kernels.__name__ or t.startswith(_kernels.__name__ + ".")
        if (in_sim and not in_kernels) or any(t == a or t.startswith(a + ".") for a in _ABOVE):
            bad.append(t)
    return sorted(set(bad))


def test_the_import_checker_finds_upward_imports():
    source = textwrap.dedent("""
        import numpy as np
        from .. import layout
        from ..layout import LF_QP
        from ...compile import pack_params
        from .... import network
        import qosmodels.mechanisms.red
        def f():
            from qosmodels import experiments
    """)
    assert _upward_imports(source, "qosmodels.sim._kernels.queues.fake") == [
        "qosmodels.experiments", "qosmodels.mechanisms.red", "qosmodels.network",
        "qosmodels.sim.compile", "qosmodels.sim.compile.pack_params"]


def test_kernels_import_nothing_above_them():
    files = sorted(KERNELS.rglob("*.py"))
    assert len(files) > 10
    offenders = {}
    for path in files:
        bad = _upward_imports(path.read_text(), _module_name(path), path.name == "__init__.py")
        if bad:
            offenders[str(path.relative_to(KERNELS))] = bad
    assert not offenders, f"kernel modules importing from above sim/_kernels: {offenders}"


def _long_functions(source: str, limit: int = MAX_FUNCTION_LINES) -> list[tuple[str, int]]:
    """(name, lines) of every function, nested ones included, longer than ``limit`` lines."""
    return [(n.name, n.end_lineno - n.lineno + 1) for n in ast.walk(ast.parse(source))
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.end_lineno - n.lineno + 1 > limit]


def test_the_length_checker_counts_lines():
    def body(n):  # a function of exactly n lines
        return "def f():\n" + "    x = 1\n" * (n - 1)
    assert _long_functions(body(MAX_FUNCTION_LINES)) == []
    assert _long_functions(body(MAX_FUNCTION_LINES + 1)) == [("f", MAX_FUNCTION_LINES + 1)]


def test_no_kernel_function_is_longer_than_250_lines():
    long = {str(p.relative_to(KERNELS)): _long_functions(p.read_text())
            for p in sorted(KERNELS.rglob("*.py"))}
    long = {k: v for k, v in long.items() if v}
    assert not long, (f"kernel functions over {MAX_FUNCTION_LINES} lines (split them into "
                      f"handlers: LLVM inlines them back): {long}")
