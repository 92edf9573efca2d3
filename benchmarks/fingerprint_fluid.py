"""The fluid models' fingerprint: every output array of 35 scenarios, for bit-identity checks.

The fluid integrator's counterpart of ``fingerprint_sim.py``: it runs ``solve_fluid`` with
every control law (P, AIAD, MW, Reno) and estimator (ideal, Vegas, Vegas-k, Monaco), AVD,
reverse links, RED/PI/PIE links, drop-tail losses, zero-delay links, ``max_rate``, flows that
start and stop, ``lsoda``, random networks; ``solve_mgt`` under RED, PI and PIE; and
``solve_dctcp_fluid``, and saves every output array (457 in all, 2026-11-27).  A refactor of
``qosmodels/fluid`` must leave them equal (``np.array_equal``, NaNs equal); a deliberate change
is recorded in ``benchmarks/RESULTS.md``.  Written for the time-major integrator (issue 37),
which kept all 457 arrays equal.

Usage::

    python benchmarks/fingerprint_fluid.py dump OUT.npz
    python benchmarks/fingerprint_fluid.py compare BEFORE.npz AFTER.npz   # exit 1 if any differ
"""
import sys

import numpy as np


def cases():
    from qosmodels import mechanisms
    from qosmodels.fluid import LinkChange, solve_dctcp_fluid, solve_fluid, solve_mgt
    from qosmodels.fluid.mgt import PieLaw, PiLaw, RedLaw
    from qosmodels.fluid.scenarios import (
        acc_delay_jump,
        acc_dynamic_flows,
        acc_reverse_dumbbell,
        acc_two_bottlenecks,
    )
    from qosmodels.topologies import acc_linear, acc_parking_lot, dumbbell, random_network
    from qosmodels.units import Mbps, ms

    pl = acc_parking_lot
    yield "P_pl", lambda: solve_fluid(pl(), 20.0, kappa=0.2)
    yield "AIAD_pl", lambda: solve_fluid(pl(), 20.0, control="AIAD", kappa=0.5)
    yield "MW_pl", lambda: solve_fluid(pl(), 20.0, control="MW", kappa=0.5)
    yield "P_lin9", lambda: solve_fluid(acc_linear(9, delay=ms(2)), 10.0, kappa=0.2)
    yield "vegas_pl", lambda: solve_fluid(pl(), 20.0, kappa=0.2, estimator="vegas",
                                          rtt_p_error=0.002)
    yield "vegask_ev", lambda: solve_fluid(pl(), 30.0, kappa=0.2, estimator="vegas-k",
                                           events=[LinkChange(10.0, "r0->r1", ms(52))])
    yield "monaco_ev", lambda: solve_fluid(pl(), 30.0, kappa=0.2, estimator="monaco",
                                           events=[LinkChange(10.0, "r0->r1", ms(52)),
                                                   LinkChange(20.0, "r1->r2", ms(3))])
    yield "monaco_dyn", lambda: solve_fluid(acc_dynamic_flows(55), 50.0, kappa=0.2,
                                            estimator="monaco")
    yield "avd_dyn", lambda: solve_fluid(acc_dynamic_flows(55), 50.0, kappa=0.2,
                                         estimator="monaco", avd_links=["r0->r1"])
    yield "avd_ideal", lambda: solve_fluid(pl(), 20.0, kappa=0.2, avd_links=["r0->r1", "r1->r2"])
    yield "rev_P", lambda: solve_fluid(acc_reverse_dumbbell(), 20.0, kappa=0.2)
    yield "rev_vegas", lambda: solve_fluid(acc_reverse_dumbbell(Mbps(10)), 20.0, kappa=0.2,
                                           estimator="vegas")
    yield "rev_monaco", lambda: solve_fluid(acc_reverse_dumbbell(), 20.0, kappa=0.2,
                                            estimator="monaco")
    jnet, jch = acc_delay_jump()
    yield "jump", lambda: solve_fluid(jnet, 30.0, kappa=0.2, estimator="vegas", events=[jch])
    from qosmodels import Flow, Network
    mnet = pl()
    mnet = Network(links=list(mnet.links), flows=[
        f if k else Flow(route=f.route, name=f.name, max_rate=Mbps(1), start=1.0, stop=12.0)
        for k, f in enumerate(mnet.flows)])
    yield "maxrate", lambda: solve_fluid(mnet, 20.0, kappa=0.2)
    yield "two_bn", lambda: solve_fluid(acc_two_bottlenecks(), 30.0, kappa=0.2)
    yield "reno_red", lambda: solve_fluid(dumbbell(10, Mbps(10), ms(20)), 40.0, control="Reno",
                                          red_links=["r0->r1"])
    yield "reno_droptail", lambda: solve_fluid(dumbbell(10, Mbps(10), ms(20)), 40.0,
                                               control="Reno")
    yield "reno_red_pl", lambda: solve_fluid(pl(), 40.0, control="Reno", red_links=[0, 1])
    yield "reno_rev", lambda: solve_fluid(acc_reverse_dumbbell(), 20.0, control="Reno",
                                          red_links=["r0->r1", "r1->r0"])
    N, C, PKT = 60, 3750.0, 1000

    def aqmnet(queue, delay=0.1, access_delay=0.0005, buffer=800):
        net = dumbbell(N, C * 8 * PKT, delay - 2 * access_delay, access_delay=access_delay,
                       packet_size=PKT)
        return net.replace_link("r0->r1", queue=queue, buffer=buffer)

    yield "reno_pi", lambda: solve_fluid(aqmnet(mechanisms.Pi(a=1.822e-5, b=1.816e-5,
                                                              sampling_rate=170, q_ref=200)),
                                         20.0, control="Reno")
    yield "reno_pie", lambda: solve_fluid(aqmnet(mechanisms.Pie()), 20.0, control="Reno")
    yield "reno_redq", lambda: solve_fluid(aqmnet(mechanisms.Red(min_th=50, max_th=300,
                                                                 max_p=0.1, w_q=0.002)),
                                           20.0, control="Reno")
    yield "zero_delay", lambda: solve_fluid(dumbbell(3, Mbps(10), ms(10), access_delay=0.0),
                                            10.0, kappa=0.2)
    yield "maxrate_stop", lambda: solve_fluid(acc_dynamic_flows(20, time_scale=0.3), 20.0,
                                              kappa=0.3, control="AIAD")
    yield "single", lambda: solve_fluid(dumbbell(3, Mbps(10), ms(10), access_capacity=Mbps(20),
                                                 access_delay=[ms(1), ms(5), ms(10)]),
                                        50.0, kappa=0.2, save_dt=0.01)
    yield "random1000", lambda: solve_fluid(random_network(1000, 100, seed=20261121), 5.0,
                                            kappa=0.2)
    net3 = random_network(300, 40, seed=3)
    yield "scale_acc", lambda: solve_fluid(net3, 10.0, kappa=0.2)
    yield "scale_reno", lambda: solve_fluid(net3, 10.0, control="Reno",
                                            red_links=[lk.name for lk in net3.links])
    yield "scale_reno_dt", lambda: solve_fluid(net3, 10.0, control="Reno", dt=2e-4, save_dt=0.003)
    yield "lsoda", lambda: solve_fluid(pl(), 10.0, kappa=0.2, method="lsoda")
    yield "mgt_red", lambda: solve_mgt(60, 3750.0, 0.2, RedLaw(50, 590, 0.1, 0.002), 800, 20.0)
    yield "mgt_pi", lambda: solve_mgt(60, 3750.0, 0.2, PiLaw(1.822e-5, 1.816e-5, 170, 200), 800,
                                      20.0)
    yield "mgt_pie", lambda: solve_mgt(60, 3750.0, 0.2, PieLaw(), 800, 20.0)
    yield "dctcp", lambda: solve_dctcp_fluid(10, 1e10 / 12000, 100e-6, 40, 1 / 16, 0.5)


def arrays(res, name):
    out = {}
    for k, val in vars(res).items() if hasattr(res, "__dict__") else []:
        if isinstance(val, np.ndarray):
            out[f"{name}.{k}"] = val
        elif isinstance(val, float):
            out[f"{name}.{k}"] = np.array(val)
    if not out:
        import dataclasses
        for f in dataclasses.fields(res):
            val = getattr(res, f.name)
            if isinstance(val, np.ndarray):
                out[f"{name}.{f.name}"] = val
    return out


def dump(path):
    import time
    allv = {}
    for name, fn in cases():
        t0 = time.perf_counter()
        try:
            r = fn()
        except Exception as e:  # noqa: BLE001
            print(f"{name}: ERROR {type(e).__name__}: {e}", flush=True)
            allv[f"{name}.error"] = np.array(str(e))
            continue
        a = arrays(r, name)
        allv.update(a)
        print(f"{name}: {len(a)} arrays, {time.perf_counter() - t0:.1f} s", flush=True)
    np.savez(path, **allv)
    print(f"{len(allv)} arrays -> {path}")


def compare(a, b):
    A, B = np.load(a), np.load(b)
    ka, kb = set(A.files), set(B.files)
    bad = 0
    if ka != kb:
        print("key sets differ:", sorted(ka ^ kb))
        bad += 1
    for k in sorted(ka & kb):
        x, y = A[k], B[k]
        same = np.array_equal(x, y, equal_nan=x.dtype.kind == "f")
        if x.shape != y.shape or x.dtype != y.dtype or not same:
            bad += 1
            diff = (np.nanmax(np.abs(x - y)) if x.shape == y.shape and x.dtype.kind == "f" else "?")
            print(f"DIFFERS {k}: max abs diff {diff}")
    print(f"{len(ka & kb)} arrays compared, {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(sys.argv[2])
    else:
        sys.exit(compare(sys.argv[2], sys.argv[3]))
