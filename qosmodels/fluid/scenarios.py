"""The ACC paper's scenarios that :mod:`qosmodels.topologies` does not already build.

Figure 2 is :func:`qosmodels.topologies.acc_parking_lot` and Figure 9
:func:`qosmodels.topologies.acc_linear`; this module adds the reverse-path
dumbbell of Figure 4, the single bottleneck whose delay jumps in Figure 5,
the dynamic flow sets of Figures 6-8, the three bottlenecks with web traffic
of Figure 10 and the two bottlenecks of Figure 11.  Where the paper leaves a value open the
docstring says what was chosen.

References
----------
Y. Xia, D. Harrison, S. Kalyanaraman, K. Ramachandran, A. Venkatesan,
"Accumulation-based congestion control", IEEE/ACM Trans. Networking 13(1),
2005, Sections IV-C and V-A.
"""

from __future__ import annotations

import numpy as np

from .. import _seed
from .. import _validate as v
from ..errors import ScenarioError, ScenarioTypeError
from ..network import Flow, Link, Network
from ..units import Mbps, ms
from ._compile import LinkChange

__all__ = ["acc_reverse_dumbbell", "acc_delay_jump", "acc_dynamic_flows", "acc_two_bottlenecks",
           "acc_web_bottlenecks", "FIG6_SETS"]


def acc_reverse_dumbbell(
    reverse_capacity: float = Mbps(5),
    *,
    capacity: float = Mbps(45),
    n_forward: int = 7,
    n_reverse: int = 7,
    delay: float = ms(5),
    access_capacity: float = Mbps(1000),
    access_delay: float = ms(1),
    buffer: int = 1000,
) -> Network:
    """Figure 4: a dumbbell congested in both directions.

    ``n_forward`` flows ``fwd{i}`` go ``s{i} -> r0 -> r1 -> d{i}`` over the
    forward bottleneck ``r0->r1`` (``capacity``); ``n_reverse`` flows
    ``rev{j}`` go ``u{j} -> r1 -> r0 -> v{j}`` over the reverse bottleneck
    ``r1->r0`` (``reverse_capacity``), which the forward flows' ACKs cross
    too (and the reverse flows' ACKs cross the forward bottleneck).  The
    paper gives the capacities (45 Mb/s forward, reverse 5 to 45 Mb/s) and
    the flow counts (7 and 7); the delays (5 ms bottleneck, 1 ms access at
    1 Gb/s) and the large buffer (1000 packets, "enough buffer") are our
    choices.

    Examples
    --------
    >>> from qosmodels.fluid.scenarios import acc_reverse_dumbbell
    >>> net = acc_reverse_dumbbell()
    >>> net.n_flows, net.capacities[:2].tolist()
    (14, [45000000.0, 5000000.0])
    """
    nf = v.integer("acc_reverse_dumbbell", "n_forward", n_forward, ge=1)
    nr = v.integer("acc_reverse_dumbbell", "n_reverse", n_reverse, ge=1)
    links = [Link("r0", "r1", capacity, delay, buffer),
             Link("r1", "r0", reverse_capacity, delay, buffer)]
    flows = []
    for i in range(nf):
        links += [Link(f"s{i}", "r0", access_capacity, access_delay, buffer),
                  Link("r1", f"d{i}", access_capacity, access_delay, buffer)]
        flows.append(Flow(route=[f"s{i}", "r0", "r1", f"d{i}"], name=f"fwd{i}"))
    for j in range(nr):
        links += [Link(f"u{j}", "r1", access_capacity, access_delay, buffer),
                  Link("r0", f"v{j}", access_capacity, access_delay, buffer)]
        flows.append(Flow(route=[f"u{j}", "r1", "r0", f"v{j}"], name=f"rev{j}"))
    return Network(links=links, flows=flows)


def acc_delay_jump(
    capacity: float = Mbps(10),
    delay: float = ms(12),
    new_delay: float = ms(52),
    at: float = 10.0,
    *,
    access_delay: float = ms(1),
    buffer: int = 100,
) -> tuple[Network, LinkChange]:
    """Figure 5: one flow on a 10 Mb/s, 12 ms bottleneck whose delay becomes 52 ms at 10 s.

    Returns the network (``s0 -> r0 -> r1 -> d0``, bottleneck ``r0->r1``) and
    the :class:`~qosmodels.fluid.LinkChange` to pass as ``events``.  The ACKs
    return over the same delays (the reverse hop is not declared, so it takes
    the forward link's delay, and the jump lengthens both directions).  The
    access delay (1 ms, 1 Gb/s) and the buffer (100 packets) are our choices.

    Examples
    --------
    >>> from qosmodels.fluid.scenarios import acc_delay_jump
    >>> net, change = acc_delay_jump()
    >>> round(change.delay, 6), [round(float(r), 6) for r in net.rtt]
    (0.052, [0.026])
    """
    links = [Link("r0", "r1", capacity, delay, buffer),
             Link("s0", "r0", Mbps(1000), access_delay, 1000),
             Link("r1", "d0", Mbps(1000), 0.0, 1000)]
    net = Network(links=links, flows=[Flow(route=["s0", "r0", "r1", "d0"], name="f0")])
    return net, LinkChange(at, "r0->r1", new_delay)


#: Figures 6-8's flow sets: (number of flows, one-way propagation delay in s, start, stop in s).
FIG6_SETS = ((10, ms(4), 0.0, 30.0), (5, ms(9), 10.0, 40.0), (5, ms(14), 20.0, 50.0))


def acc_dynamic_flows(
    buffer: int = 90,
    *,
    capacity: float = Mbps(30),
    delay: float = ms(2),
    access_capacity: float = Mbps(10),
    sets=FIG6_SETS,
    time_scale: float = 1.0,
) -> Network:
    """Figures 6-8: a 30 Mb/s, 2 ms bottleneck with flow sets arriving and leaving.

    Set 1 has ten flows active 0-30 s, set 2 five flows 10-40 s, set 3 five
    flows 20-50 s, with one-way propagation delays 4, 9 and 14 ms; each flow
    reaches the bottleneck ``r0->r1`` over its own 10 Mb/s access link and
    leaves over another.  The paper says the access links have 1 ms delay
    while the sets' one-way delays differ; here the delay beyond the
    bottleneck's 2 ms is split equally between the two access links (1, 3.5
    and 6 ms each).  ``buffer`` is the bottleneck's buffer in packets (90 in
    Figure 6, 55 in Figures 7 and 8).  ``time_scale`` multiplies the start
    and stop times (for short test runs).

    Examples
    --------
    >>> from qosmodels.fluid.scenarios import acc_dynamic_flows
    >>> net = acc_dynamic_flows()
    >>> net.n_flows, int(net.buffers[0])
    (20, 90)
    """
    scale = v.real("acc_dynamic_flows", "time_scale", time_scale, gt=0)
    links = [Link("r0", "r1", capacity, delay, buffer)]
    flows = []
    k = 0
    for s, (n, one_way, t0, t1) in enumerate(sets):
        side = (one_way - delay) / 2
        for j in range(n):
            links += [Link(f"s{k}", "r0", access_capacity, side, 1000),
                      Link("r1", f"d{k}", access_capacity, side, 1000)]
            flows.append(Flow(route=[f"s{k}", "r0", "r1", f"d{k}"], name=f"set{s + 1}_{j}",
                              start=t0 * scale, stop=t1 * scale))
            k += 1
    return Network(links=links, flows=flows)


def acc_two_bottlenecks(
    *,
    capacity: float = Mbps(1),
    delay: float = ms(20),
    access_capacity: float = Mbps(100),
    access_delay: float = ms(1),
    buffer: int = 100,
) -> Network:
    """Figure 11: two 1 Mb/s drop-tail bottlenecks, two short flows, two long flows that come
    and go.

    ``short0`` crosses ``r0->r1``, ``short1`` crosses ``r1->r2``, both active throughout;
    ``long1`` crosses both from 20 to 60 s, ``long2`` from 40 to 80 s.  The paper gives
    the bottlenecks (1 Mb/s, 20 ms, drop-tail) and the flows' times; the access links
    (100 Mb/s, 1 ms) and the 100-packet buffers are our choices.

    Examples
    --------
    >>> from qosmodels.fluid.scenarios import acc_two_bottlenecks
    >>> net = acc_two_bottlenecks()
    >>> net.flow_names, [f.start for f in net.flows]
    (('short0', 'short1', 'long1', 'long2'), [0.0, 0.0, 20.0, 40.0])
    """
    links = [Link("r0", "r1", capacity, delay, buffer), Link("r1", "r2", capacity, delay, buffer),
             Link("a0", "r0", access_capacity, access_delay, buffer),
             Link("r1", "b0", access_capacity, access_delay, buffer),
             Link("a1", "r1", access_capacity, access_delay, buffer),
             Link("r2", "b1", access_capacity, access_delay, buffer),
             Link("a2", "r0", access_capacity, access_delay, buffer),
             Link("r2", "b2", access_capacity, access_delay, buffer)]
    flows = [Flow(["a0", "r0", "r1", "b0"], name="short0"),
             Flow(["a1", "r1", "r2", "b1"], name="short1"),
             Flow(["a2", "r0", "r1", "r2", "b2"], name="long1", start=20.0, stop=60.0),
             Flow(["a2", "r0", "r1", "r2", "b2"], name="long2", start=40.0, stop=80.0)]
    return Network(links=links, flows=flows)



def acc_web_bottlenecks(
    *,
    seed,
    n_web: int = 1000,
    n_web_access: int = 50,
    web_start: float = 30.0,
    capacity: float = Mbps(100),
    delay: float = ms(4),
    access_capacity: float = Mbps(1000),
    buffer: int = 1000,
    avd: bool = True,
    web=None,
) -> Network:
    """Figure 10: three 100 Mb/s bottlenecks, two long flows, three sets of two short flows
    and two sets of web connections.

    The bottlenecks are ``R1->R2`` (AVD: ``Avq(gamma=0.98, avd=True)`` unless ``avd`` is
    False), ``R2->R3`` and ``R3->R4`` (drop-tail).  ``long1`` (0-50 s) and ``long2``
    (20-40 s) cross all three; short set ``k`` (flows ``short{k}_0``, ``short{k}_1``)
    crosses bottleneck ``k`` only, each flow starting at a time drawn uniformly from
    [0, 3) s (``seed``: int, ``SeedSequence`` or ``Generator``, as ``simulate`` takes
    it).  ``n_web`` :class:`~qosmodels.mechanisms.WebTraffic` connections (``web{s}_{j}``,
    starting at ``web_start``, each with the source ``web``: a
    :class:`~qosmodels.mechanisms.WebTraffic`, its defaults if None) form two sets, the first crossing ``R1->R2``, the
    second ``R2->R3`` (the bottlenecks where, the paper says, web traffic limits the
    long flows); each set's connections are spread in turn over ``n_web_access / 2``
    access links whose one-way delays are evenly spaced from 1 to 100 ms (the paper's
    "1-100ms").

    The paper gives the capacities (100 Mb/s bottlenecks, 1 Gb/s access), the AVD
    router, the flows' sets and times, 1000 web connections on fifty access links,
    and 1 ms for every unlabelled link.  The bottleneck delays (4 ms, as in Figure 9),
    the 1 ms exit links, the web sets' bottlenecks, the 1000-packet buffers ("enough
    buffer") and the web connections' parameters (:class:`WebTraffic`'s defaults,
    ns-2's large-scale web traffic example: 12-packet mean Pareto objects of shape
    1.2, 15 s mean think times; pass ``web=`` for others) are our choices: the figure that shows the delays is not in the
    text.  Weighted proportional fairness (equal targets) without the web traffic
    gives each long flow ``100 / (6 + n)`` Mb/s and each short flow ``300 / (6 + n)``,
    ``n`` the active long flows.

    Examples
    --------
    >>> from qosmodels.fluid.scenarios import acc_web_bottlenecks
    >>> net = acc_web_bottlenecks(seed=1, n_web=20, n_web_access=4)
    >>> net.n_flows, net.flow_names[:3], net.link_names[:3]
    (28, ('long1', 'long2', 'short1_0'), ('R1->R2', 'R2->R3', 'R3->R4'))
    """
    from ..mechanisms import Avq, WebTraffic

    owner = "acc_web_bottlenecks"
    _seed.check(owner, seed)
    n_web = v.integer(owner, "n_web", n_web, ge=0)
    n_access = v.integer(owner, "n_web_access", n_web_access, ge=2)
    if n_access % 2:
        raise ScenarioError(f"{owner}.n_web_access must be even (two web sets share them "
                              f"equally), got {n_access}")
    web_start = v.real(owner, "web_start", web_start, ge=0, unit="s")
    if web is None:
        web = WebTraffic()
    elif not isinstance(web, WebTraffic):
        raise ScenarioTypeError(f"{owner}.web must be a WebTraffic source (or None for its "
                                f"defaults), got {type(web).__name__}")
    rng = _seed.generator(owner, seed)
    bottleneck_queue = Avq(gamma=0.98, avd=True) if avd else None
    links = [Link("R1", "R2", capacity, delay, buffer,
                  **({"queue": bottleneck_queue} if bottleneck_queue is not None else {})),
             Link("R2", "R3", capacity, delay, buffer),
             Link("R3", "R4", capacity, delay, buffer)]
    flows = []
    for k in (1, 2):  # the long flows
        links += [Link(f"L{k}", "R1", access_capacity, ms(1), buffer),
                  Link("R4", f"M{k}", access_capacity, ms(1), buffer)]
    flows.append(Flow(["L1", "R1", "R2", "R3", "R4", "M1"], name="long1", start=0.0,
                      stop=50.0))
    flows.append(Flow(["L2", "R1", "R2", "R3", "R4", "M2"], name="long2", start=20.0,
                      stop=40.0))
    for k in (1, 2, 3):  # short set k on bottleneck R{k}->R{k+1}
        for j in (0, 1):
            links += [Link(f"S{k}_{j}", f"R{k}", access_capacity, ms(1), buffer),
                      Link(f"R{k + 1}", f"T{k}_{j}", access_capacity, ms(1), buffer)]
            flows.append(Flow([f"S{k}_{j}", f"R{k}", f"R{k + 1}", f"T{k}_{j}"],
                              name=f"short{k}_{j}", start=float(rng.uniform(0.0, 3.0))))
    per_set = n_access // 2
    access_delays = np.linspace(ms(1), ms(100), per_set)
    for s in (1, 2):  # web set s on bottleneck R{s}->R{s+1}
        for a in range(per_set):
            links += [Link(f"W{s}_{a}", f"R{s}", access_capacity, float(access_delays[a]),
                           buffer),
                      Link(f"R{s + 1}", f"X{s}_{a}", access_capacity, ms(1), buffer)]
        n_set = n_web // 2 + (n_web % 2 if s == 1 else 0)
        for j in range(n_set):
            a = j % per_set
            flows.append(Flow([f"W{s}_{a}", f"R{s}", f"R{s + 1}", f"X{s}_{a}"],
                              name=f"web{s}_{j}", start=web_start, source=web))
    return Network(links=links, flows=flows)
