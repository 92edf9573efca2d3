"""The ACC paper's scenarios that :mod:`qosmodels.topologies` does not already build.

Figure 2 is :func:`qosmodels.topologies.acc_parking_lot` and Figure 9
:func:`qosmodels.topologies.acc_linear`; this module adds the reverse-path
dumbbell of Figure 4, the single bottleneck whose delay jumps in Figure 5 and
the dynamic flow sets of Figures 6-8.  Where the paper leaves a value open the
docstring says what was chosen.

References
----------
Y. Xia, D. Harrison, S. Kalyanaraman, K. Ramachandran, A. Venkatesan,
"Accumulation-based congestion control", IEEE/ACM Trans. Networking 13(1),
2005, Sections IV-C and V-A.
"""

from __future__ import annotations

from .. import _validate as v
from ..network import Flow, Link, Network
from ..units import Mbps, ms
from ._compile import LinkChange

__all__ = ["acc_reverse_dumbbell", "acc_delay_jump", "acc_dynamic_flows", "acc_two_bottlenecks",
           "FIG6_SETS"]


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

