"""The contract between the packet kernel and a mechanism's kernel module, declared.

A mechanism is a spec (``qosmodels/mechanisms/``), a kernel module
(``qosmodels/sim/_kernels/{queues,sources,edges}/``) whose ``HOOKS`` name the
handlers the dispatch modules branch to, and its tests (the simulator guide,
"Adding a mechanism").  This module states what the kernel expects of each
part, in one place:

* :data:`ATTRIBUTES`: the plain-Python attributes the compile step
  (:mod:`qosmodels.sim.compile`) reads from a kernel module, per owner (queue,
  source, edge), required or optional, with their signatures;
* :data:`HOOKS`: the dispatch hooks, their parameters, where the kernel calls
  them from, what the mechanism answers and what the hook does for a code no
  mechanism claims (the dispatch modules are written from them and the kernel
  modules' ``HOOKS`` by :mod:`qosmodels.sim._gen_dispatch`) (the guide's hook table is checked
  against it, ``tests/sim/test_contract.py``);
* :data:`SPEC_ATTRIBUTES`: what the compile step reads from a mechanism's spec besides its
  ``kernel`` (the route rules and flags the spec base classes define, that a spec
  overrides for its mechanism), checked by :func:`check_spec`;
* :data:`STATE`: each owner's state columns, so that a kernel module's named
  columns (``Q_ROUND = LF_QS + 0``, ...) can be checked against the block's size.

:func:`provides` is how the compile step asks whether a module has an optional
attribute (it refuses a name the contract does not declare);
:func:`check_module` lists what a kernel module gets wrong.  Plain Python: it
imports no Numba.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

__all__ = ["Attribute", "Hook", "ATTRIBUTES", "HOOKS", "STATE", "OWNERS", "provides",
           "check_module", "attribute", "SPEC_ATTRIBUTES", "check_spec"]

#: The owners of kernel modules, by the package they live in.
OWNERS = ("queue", "source", "edge")


@dataclass(frozen=True)
class Attribute:
    """A plain-Python attribute of a kernel module that the compile step reads.

    Attributes
    ----------
    name : str
    owners : tuple of str
        The owners whose modules may have it (:data:`OWNERS`).
    required : bool
        Every such module must have it.
    params : tuple of str or None
        A function's parameter names, in order; None for a constant.
    doc : str
        What it is or returns.
    """

    name: str
    owners: tuple
    required: bool
    params: tuple | None
    doc: str


@dataclass(frozen=True)
class Hook:
    """A dispatch hook: one function with a branch per mechanism that implements it.

    Attributes
    ----------
    name : str
    owner : str
        Whose code it dispatches on (:data:`OWNERS`).
    params : tuple of str
        Its parameters (``S`` the compiled state, ``code`` the owner's mechanism code).
    module : str
        The dispatch module defining it (``dispatch`` or ``dispatch_edges``).
    called_from : str
        The kernel function that calls it.
    answer : str
        What the mechanism does or returns.
    returns : bool
        The hook returns the mechanism's answer (``return fn(...)`` in each branch);
        False: it calls the mechanism's function for its effect.
    default : str
        What the hook does for a code no mechanism claims (Python source of the hook's
        body, after the branches; for a hook that only calls, the ``else`` arm).
    after : str
        A statement after the branches of a hook that only calls (``return True``).
    """

    name: str
    owner: str
    params: tuple
    module: str
    called_from: str
    answer: str
    returns: bool = True
    default: str = ""
    after: str = ""


ATTRIBUTES = (
    Attribute("CODE", OWNERS, True, None,
              "an integer unique among the owner's modules, the branch key of every hook"),
    Attribute("PARAMS", OWNERS, True, None,
              "the spec fields packed into the owner's parameter row, in column order: a field "
              "name or a pair (label, function of the spec)"),
    Attribute("HOOKS", OWNERS, True, None,
              "the dispatch hooks the module carries out (:data:`HOOKS`' names of its owner), "
              "each mapped to its handler or to ``\"package.module.function\"``; "
              "``qosmodels/sim/_gen_dispatch.py`` writes the dispatch modules from them"),
    Attribute("TIMERS", OWNERS, False, None,
              "the number of timer slots the owner needs (default 0)"),
    Attribute("traces", ("queue", "source"), False, ("spec",),
              "the trace channels the spec records"),
    Attribute("traces", ("edge",), False, ("spec", "n_members"),
              "the trace channels the edge element records for its members"),
    Attribute("setup", ("source",), True, ("spec", "ff", "fi"),
              "the flow's initial state in its rows; returns its largest window, packets (0: "
              "open loop)"),
    Attribute("setup_flow", ("source",), False, ("spec", "network", "i", "ff", "fi"),
              "the flow's state that depends on the network, after setup"),
    Attribute("slots", ("queue",), False, ("spec", "n_crossings"),
              "the FIFO rings the link needs (default the spec's n_classes)"),
    Attribute("sorted_queues", ("queue",), False, ("spec", "buffer", "n_crossings"),
              "the sizes of the link's two sorted queues"),
    Attribute("setup_link", ("queue",), False,
              ("spec", "network", "l", "xs", "x_flow", "lf", "li", "hs", "hsi"),
              "the link's and its crossings' initial state; ScenarioError for a network it "
              "cannot run"),
    Attribute("setup_edge", ("edge",), True, ("spec", "network", "members", "ef", "ff", "fi"),
              "the element's and its members' initial state"),
    Attribute("hold_capacity", ("edge",), True, ("spec",),
              "the packets the element may hold per member"),
)

#: What the compile step reads from a spec (``qosmodels/mechanisms/_base.py`` defines each
#: on the base class; a spec overrides what its mechanism changes).  A function's ``params``
#: include ``self``.
SPEC_ATTRIBUTES = (
    Attribute("n_classes", ("queue",), True, None,
              "the FIFO classes the queue keeps (a flow's priority must be below it)"),
    Attribute("check_crossing", ("queue",), True, ("self", "source", "flow", "link"),
              "raise ScenarioError if the queue cannot carry the packets of a flow with that "
              "source crossing it, either way (a priority class it does not have)"),
    Attribute("check_route", ("source",), True, ("self", "flow", "queues"),
              "raise ScenarioError if the source cannot run over a forward route of these "
              "queues (DECbit windows without a bit-setting gateway, Green packets without a "
              "colour-aware queue)"),
    Attribute("out_of_band", ("source",), True, None,
              "the flow sends out-of-band control packets: every link it crosses, either "
              "way, gets an out-of-band lane"),
)

HOOKS = (
    Hook("queue_class", "queue", ("S", "code", "l", "p"), "dispatch", "link.enqueue",
         "the class slot packet `p` joins at link `l` (-1: no such class)",
         default="return 0"),
    Hook("queue_admit", "queue", ("S", "code", "l", "p"), "dispatch", "link.enqueue",
         "-1 to admit (possibly marked), else the drop cause's column (`LI_DROP_EARLY`, ...)",
         default="return -1"),
    Hook("queue_store", "queue", ("S", "code", "l", "p", "s"), "dispatch", "link.enqueue",
         "store admitted packet `p` (class slot `s`) at a busy link the discipline's way and "
         "return `True`, or `False` for the class rings",
         default="return False"),
    Hook("queue_select", "queue", ("S", "code", "l"), "dispatch", "link.dequeue",
         "the packet link `l` sends next, taken out of the discipline's store (-1: none), or "
         "`RINGS` for the class rings; called as a transmission ends, before the link's counts "
         "change",
         default="return RINGS"),
    Hook("queue_timer", "queue", ("S", "code", "l", "k"), "dispatch", "engine.on_timer_event",
         "link `l`'s queue's timer slot `k` has come due",
         returns=False),
    Hook("source_start", "source", ("S", "code", "f"), "dispatch", "flows.on_start",
         "schedule an open-loop source's first packet; `False` for window sources",
         returns=False, default="return False", after="return True"),
    Hook("source_next_tick", "source", ("S", "code", "f", "now"), "dispatch",
         "flows.on_source_tick", "time of an open-loop source's next packet",
         default="return np.inf"),
    Hook("source_send_limit", "source", ("S", "code", "f"), "dispatch", "flows.send_packets",
         "one past the last sequence number a window source may send now",
         default="return S.fi[f, FI_SND_UNA]"),
    Hook("source_ack", "source", ("S", "code", "f", "a", "ece"), "dispatch", "engine.run",
         "a window source's reaction to cumulative ACK `a` (`ece`: it echoes a congestion "
         "indication, an ECN echo or a DECbit)",
         returns=False),
    Hook("source_timeout", "source", ("S", "code", "f"), "dispatch", "flows.on_timer",
         "a window source's reaction to its retransmission timeout, before going back N",
         returns=False),
    Hook("source_timer", "source", ("S", "code", "f", "k"), "dispatch", "flows.on_timer",
         "flow `f`'s source timer slot `k` (>= 1) has come due; `True` to let the flow send",
         default="return False"),
    Hook("source_echo", "source", ("S", "code", "f", "p"), "dispatch", "flows.ack_arrives",
         "a control packet's echo reaches the sender (the caller frees it)",
         returns=False),
    Hook("source_window", "source", ("S", "code", "f", "windowed"), "dispatch",
         "record.on_sample", "the window to record, packets (NaN for open-loop sources)",
         default="if windowed:\n    return window.window(S, f)\nreturn np.nan"),
    Hook("receiver_echo", "source", ("S", "code", "f", "p"), "dispatch", "receiver.on_data",
         "the mark bits the ACK of data packet `p` carries (an ECN echo by default; a DECbit "
         "receiver copies `MARK_DECBIT`)",
         default="return MARK_ECE if (S.pi[p, PI_MARK] & MARK_CE) != 0 else 0"),
    Hook("receiver_control", "source", ("S", "code", "f", "p"), "dispatch",
         "receiver.on_data", "a control packet reaches the receiver: the source's receiver "
         "side takes it (frees it or turns it into an echo)",
         returns=False, default="release(S, p)"),
    Hook("receiver_feedback", "source", ("S", "code", "f", "p"), "dispatch",
         "receiver.on_data", "whether the receiver of an open-loop flow turns data packet `p` "
         "into a feedback packet (setting its `PI_SEQ`); `False`: the packet is freed",
         default="return False"),
    Hook("edge_ingress", "edge", ("S", "code", "e", "f", "p"), "dispatch_edges",
         "sender.transmit", "edge `e`'s verdict on data packet `p` of its member `f`: "
         "`EDGE_PASS` or `EDGE_GONE` (dropped, or held to forward later)",
         default="return EDGE_PASS"),
    Hook("edge_gate", "edge", ("S", "code", "e", "f", "more"), "dispatch_edges",
         "flows.send_packets", "whether window sender `f` may send a packet now (`more`), or "
         "that it has nothing more to send",
         default="return True"),
    Hook("edge_timer", "edge", ("S", "code", "e", "k"), "dispatch_edges",
         "engine.on_timer_event", "edge `e`'s timer slot `k` has come due",
         returns=False),
    Hook("edge_ack", "edge", ("S", "code", "e", "f", "p", "acked"), "dispatch_edges",
         "flows.ack_arrives", "an ACK of member `f` reaches the sender, newly acknowledging "
         "`acked` packets (before the source reacts)",
         returns=False),
    Hook("edge_echo", "edge", ("S", "code", "e", "f", "p"), "dispatch_edges",
         "receiver.on_data", "member `f`'s receiver has just turned a data packet into its "
         "ACK `p`",
         returns=False),
)

#: Each owner's state blocks in the kernel's arrays: (array, first column constant, size
#: constant), the constants named in :mod:`qosmodels.sim._kernels.layout`.  A kernel module
#: names its columns ``FIRST + k`` with ``0 <= k < SIZE``.
STATE = {
    "queue": (("lf", "LF_QS", "N_QS"), ("li", "LI_QS", "N_QSI")),
    "source": (("ff", "FF_SS", "N_SS"), ("fi", "FI_SS", "N_SSI")),
    "edge": (("ef", "EF_ES", "N_EFS"), ("ff", "FF_ES", "N_ES"), ("fi", "FI_ES", "N_ESI")),
}


def attribute(owner: str, name: str) -> Attribute:
    """The declared attribute ``name`` of ``owner``'s modules.

    Raises
    ------
    KeyError
        If the contract declares no such attribute for that owner.
    """
    for a in ATTRIBUTES:
        if a.name == name and owner in a.owners:
            return a
    raise KeyError(f"the kernel-module contract declares no {name!r} for {owner} modules "
                   f"(qosmodels/sim/contract.py)")


def provides(kmod, owner: str, name: str) -> bool:
    """Whether kernel module ``kmod`` (of ``owner``) has the declared attribute ``name``;
    a name the contract does not declare is a programming error (KeyError)."""
    attribute(owner, name)
    return hasattr(kmod, name)


def check_module(kmod, owner: str) -> list[str]:
    """What kernel module ``kmod`` of ``owner`` gets wrong against :data:`ATTRIBUTES`: a
    missing required attribute, a constant of the wrong type, a function whose parameters
    differ from the declared ones.  Empty when it keeps the contract."""
    problems = []
    for a in ATTRIBUTES:
        if owner not in a.owners:
            continue
        if not hasattr(kmod, a.name):
            if a.required:
                problems.append(f"{kmod.__name__}: no {a.name} ({a.doc})")
            continue
        value = getattr(kmod, a.name)
        if a.params is None:
            own = {h.name for h in HOOKS if h.owner == owner}
            ok = {"CODE": lambda x: isinstance(x, int) and not isinstance(x, bool),
                  "TIMERS": lambda x: isinstance(x, int) and x >= 0,
                  "PARAMS": lambda x: isinstance(x, tuple),
                  "HOOKS": lambda x: isinstance(x, dict) and set(x) <= own,
                  }.get(a.name, lambda x: True)
            if not ok(value):
                problems.append(f"{kmod.__name__}.{a.name} = {value!r}: {a.doc}")
            continue
        if not callable(value):
            problems.append(f"{kmod.__name__}.{a.name} is not a function")
            continue
        got = tuple(inspect.signature(value).parameters)
        if got != a.params:
            problems.append(f"{kmod.__name__}.{a.name}{got}: the contract says "
                            f"{a.name}({', '.join(a.params)})")
    return problems


def check_spec(cls, owner: str) -> list[str]:
    """What spec class ``cls`` of ``owner`` (``"queue"`` or ``"source"``) gets wrong against
    :data:`SPEC_ATTRIBUTES`: a missing attribute, a function whose parameters differ from
    the declared ones.  Empty when it keeps the contract."""
    problems = []
    for a in SPEC_ATTRIBUTES:
        if owner not in a.owners:
            continue
        if not hasattr(cls, a.name):
            problems.append(f"{cls.__name__}: no {a.name} ({a.doc})")
            continue
        if a.params is not None:
            got = tuple(inspect.signature(getattr(cls, a.name)).parameters)
            if got != a.params:
                problems.append(f"{cls.__name__}.{a.name}{got}: the contract says "
                                f"{a.name}({', '.join(a.params)})")
    return problems
