"""A user's script, checked by ``mypy --strict`` (tests/test_typing.py): the public API as a
typed program meets it.  It is type-checked, not run."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor

import numpy as np

import qosmodels as q
from qosmodels import Aggregate, Flow, Link, Network, topologies
from qosmodels.fq import fair_queue
from qosmodels.mechanisms import AggregateBucket, FairQueueing, Red, TcpNewReno, TcpVegas
from qosmodels.sim import Record


def run(n: int, seed: int) -> dict[str, float]:
    net = topologies.dumbbell(n, capacity=q.Mbps(10), delay=q.ms(20))
    res = q.simulate(net, 10.0, seed=seed, warmup=1.0, record=Record(interval=0.5))
    return {"goodput": float(res.throughput.sum()), "jain": q.jain_index(res.throughput)}


def main() -> None:
    links = [Link("a", "b", q.Mbps(10), q.ms(10), queue=Red()),
             Link("b", "c", q.Mbps(5), q.ms(5), buffer=50, queue=FairQueueing())]
    flows = [Flow(["a", "b", "c"], source=TcpNewReno(), name="long"),
             Flow(["b", "c"], source=TcpVegas(), weight=2.0)]
    net = Network(links, flows, aggregates=[Aggregate("agg", flows=["long"],
                                                      edge=AggregateBucket(rate=1e6, depth=3e4))])
    alloc = q.allocate(net, "alpha", alpha=2.0)
    rates: np.ndarray = alloc.rates
    fluid = q.solve_fluid(net, 10.0)
    ax = alloc.plot()
    fluid.plot(ax=ax)
    res = q.simulate(net, 5.0, seed=0)
    res.plot("throughput", smooth=1.0)
    table = res.to_pandas()
    rep = q.replicate(net, 2, 1.0, seed=0)
    with ProcessPoolExecutor(2) as pool:
        df = q.sweep(run, {"n": [2, 4]}, seeds=2, seed=0, executor=pool)
    back = Network.from_dict(net.to_dict())
    path = net.save("scenario.json")
    same = Network.load(path) == back
    fq = fair_queue([0.0, 0.0], [0, 1], [100, 100], capacity=q.kbps(8))
    print(rates, table, rep, df, same, fq, q.__version__)
