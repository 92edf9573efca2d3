"""``qosmodels simulate`` on a paper's topology runs the paper's mechanisms (issue 38, item 5),
and the ``--json`` outputs of ``simulate`` and ``allocate`` give rates in the same unit (item 6).

The references are the papers' settings as the issue lists them (PPS: tickets and TRED; ABE:
the ABE router with Green and Blue sources; ACC: Accumulation sources; token buckets: an
AggregateBucket at the aggregate's edge and ERED routers) and, for PPS, the network the
``pps-fig5`` experiment simulates (one definition of PPS's packet setting, not two).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from qosmodels.cli import PAPER_MECHANISMS, main
from qosmodels.topologies import TOPOLOGIES, topology

#: Topologies that are mechanism-neutral on purpose: no paper's mechanisms to install.
NEUTRAL = {"dumbbell", "parking-lot", "random"}
#: Required builder arguments, for the topologies that have some.
REQUIRED = {"acc-linear": {"n_bottlenecks": 2}}


def _paper_net(name: str, **params):
    net = topology(name, **{**REQUIRED.get(name, {}), **params})
    return PAPER_MECHANISMS[name](net, params)


def test_every_registered_topology_is_a_paper_one_with_mechanisms_or_declared_neutral():
    assert set(TOPOLOGIES) == NEUTRAL | set(PAPER_MECHANISMS)
    assert not NEUTRAL & set(PAPER_MECHANISMS)


@pytest.mark.parametrize("name", ["pps-one-hop", "pps-ten-flow", "pps-multi-hop",
                                  "pps-multiple-bottleneck"])
def test_pps_topologies_get_tickets_and_tred(name):
    from qosmodels.mechanisms import TcpReno, TicketRed, TicketTagger

    net, text = _paper_net(name)
    assert all(isinstance(link.queue, TicketRed) for link in net.links)
    assert all(type(f.source) is TcpReno and f.source.max_window == 20 for f in net.flows)
    # one tagger per flow, at its own edge
    assert len(net.aggregates) == net.n_flows
    assert all(isinstance(a.edge, TicketTagger) for a in net.aggregates)
    assert text.startswith("PPS (Zhang, Wang, Peterson, Krishnamurthy)")


def test_pps_one_hop_is_what_the_figure_4_experiment_simulates():
    from qosmodels.experiments.pps import figure4, packet_network

    net, text = _paper_net("pps-one-hop")
    _, tickets = figure4()  # (the experiment builds its network with rtt=0.026 exactly)
    assert net == packet_network(topology("pps-one-hop"), tickets)
    assert "s1->r0 100" in text and "s9->r0 900" in text


def test_pps_multi_hop_takes_the_link_tickets_given_with_p():
    from qosmodels.pps import fair_rates

    net, text = _paper_net("pps-multi-hop", link_tickets={"S0->S3": 600, "S1->S3": 900})
    assert "S0->S3 600" in text and "S1->S3 900" in text and "S2->S4 1000" in text
    # Section 3.4's expected rates with those tickets: A 0.3, B 0.45, C 0.25 Mb/s
    assert fair_rates(net).rates == pytest.approx([0.3e6, 0.45e6, 0.25e6])
    default, _ = _paper_net("pps-multi-hop")
    assert fair_rates(default).rates == pytest.approx([0.5e6, 0.25e6, 0.25e6])  # Table 1


@pytest.mark.parametrize("name", ["acc-parking-lot", "acc-linear"])
def test_acc_topologies_get_accumulation_sources_at_table_1(name):
    from qosmodels.mechanisms import Accumulation, DropTail

    net, text = _paper_net(name)
    assert all(type(f.source) is Accumulation for f in net.flows)
    # the paper's Table I: target accumulation 3000 bytes, gain 0.5
    assert {(f.source.target, f.source.kappa) for f in net.flows} == {(3000.0, 0.5)}
    assert all(type(link.queue) is DropTail for link in net.links)
    assert text.startswith("ACC (Xia et al.)")


def test_abe_dumbbell_keeps_the_abe_router_and_green_and_blue_sources():
    from qosmodels.mechanisms import AbeQueue, TcpFriendly, TcpReno

    net, text = _paper_net("abe-dumbbell")
    assert isinstance(net.links[net.link_id(("r1", "r2"))].queue, AbeQueue)
    green = [f.source for f, n in zip(net.flows, net.flow_names) if n.startswith("green")]
    blue = [f.source for f, n in zip(net.flows, net.flow_names) if n.startswith("blue")]
    assert len(green) == len(blue) == 15
    assert all(isinstance(s, TcpFriendly) and s.green for s in green)
    assert all(isinstance(s, TcpReno) and not s.green for s in blue)
    assert "AbeQueue at r1->r2" in text


def test_aggregate_rate_control_gets_a_marking_bucket_and_ered():
    from qosmodels.mechanisms import AggregateBucket, Ered, TcpNewReno

    net, text = _paper_net("aggregate-rate-control")
    assert all(type(link.queue) is Ered for link in net.links)
    assert all(type(f.source) is TcpNewReno for f in net.flows)
    (agg,) = net.aggregates
    assert set(net.aggregate_members(agg.name)) == set(range(net.n_flows))
    assert isinstance(agg.edge, AggregateBucket)
    # Figure 6: policing and marking with a bucket partitioned among the connections, at the
    # aggregate rate 800 kb/s the experiment declares
    assert (agg.edge.sharing, agg.edge.action, agg.edge.rate) == ("partitioned", "mark", 800e3)
    assert "Ered at every link" in text


def _json(capsys, *argv):
    assert main(["simulate", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_simulate_runs_the_paper_mechanisms_and_says_so(capsys):
    out = _json(capsys, "pps-one-hop", "--duration", "3")
    assert {link["queue"] for link in out["links"]} == {"ticket-red"}
    assert {f["source"] for f in out["flows"]} == {"reno"}
    assert out["mechanisms"].startswith("PPS (")
    assert out["model"].startswith("PPS tickets: the paper's fair rates are ticket-weighted")
    # flow k holds 100 k of the 4500 tickets over the 1.5 Mb/s bottleneck
    fair = np.array([f["pps_fair_bps"] for f in out["flows"]])
    assert fair == pytest.approx(1.5e6 * np.arange(1, 10) / 45)
    out = _json(capsys, "acc-linear", "-p", "n_bottlenecks=2", "--duration", "3")
    assert {f["source"] for f in out["flows"]} == {"acc"}
    assert main(["simulate", "aggregate-rate-control", "--duration", "3"]) == 0
    text = capsys.readouterr().out
    assert "Mechanisms: aggregate TCP rate control (Mehra, Tewari, Kandlur)" in text


def test_bare_and_the_overrides(capsys):
    out = _json(capsys, "pps-one-hop", "--duration", "3", "--bare")
    assert out["mechanisms"] is None
    assert {link["queue"] for link in out["links"]} == {"droptail"}
    assert {f["source"] for f in out["flows"]} == {"newreno"}
    out = _json(capsys, "pps-one-hop", "--duration", "3", "--source", "TcpNewReno")
    assert {f["source"] for f in out["flows"]} == {"newreno"}
    assert {link["queue"] for link in out["links"]} == {"ticket-red"}
    assert out["mechanisms"].endswith("then --source TcpNewReno on every flow, replacing the "
                                      "paper's")
    out = _json(capsys, "dumbbell", "-p", "n_flows=2", "--duration", "3")
    assert out["mechanisms"] is None  # a neutral topology runs as built


def test_the_json_outputs_share_si_rates_and_say_their_units(capsys):
    out = _json(capsys, "parking-lot", "-p", "n_links=2", "--duration", "3")
    for f in out["flows"]:
        for name in ("goodput", "maxmin", "proportional"):
            assert f[f"{name}_bps"] == pytest.approx(f[f"{name}_Mbps"] * 1e6, rel=1e-12)
            assert out["units"][f"{name}_bps"] == "bit/s"
            assert out["units"][f"{name}_Mbps"] == "Mb/s"
        assert f["queueing_delay_s"] == pytest.approx(f["queueing_delay_ms"] / 1e3, rel=1e-12)
    # proportional fairness on the two-link parking lot: 10/3 Mb/s for the long flow
    assert out["flows"][0]["proportional_bps"] == pytest.approx(1e7 / 3)
    assert main(["allocate", "parking-lot", "-p", "n_links=2", "--json"]) == 0
    alloc = json.loads(capsys.readouterr().out)
    assert alloc["units"]["rate_bps"] == "bit/s"
    assert alloc["units"]["price"] == "weight per bit/s"
    assert [f["rate_bps"] for f in alloc["flows"]] == pytest.approx(
        [f["proportional_bps"] for f in out["flows"]])
    assert main(["allocate", "parking-lot", "-p", "n_links=2", "--json", "--fairness", "alpha",
                 "--alpha", "2"]) == 0
    assert json.loads(capsys.readouterr().out)["units"]["price"] == "(weight per bit/s)^2"
