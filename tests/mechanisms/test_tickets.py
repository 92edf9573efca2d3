"""qosmodels.mechanisms.tickets: TicketTagger and TicketRed, their validation rules and the
tag quantisation rule (PPS, Sections 2.3-2.8, 3.9)."""

import math

import pytest

from qosmodels import ScenarioError
from qosmodels.errors import ScenarioTypeError
from qosmodels.mechanisms import Red, TicketRed, TicketTagger
from qosmodels.mechanisms.tickets import TRED_K, TSW_WINDOW, quantise


def test_defaults_are_the_papers():
    # WinLength 60 s (Section 3), K = 1.4 (Section 2.4.2), the cubic (Section 2.4.2),
    # 8-bit tags (Section 3.9)
    q = TicketRed()
    assert (q.window, q.k, q.exponent, q.bits, q.levels) == (60.0, 1.4, 3.0, 8, 255)
    assert (TSW_WINDOW, TRED_K) == (60.0, 1.4)
    assert (q.tickets, q.rule, q.variant, q.police) == (None, "tcp", "sender", False)
    assert isinstance(q, Red) and (q.min_th, q.max_th) == (Red().min_th, Red().max_th)
    assert (q.kind, q.kernel) == ("ticket-red", "queues.ticket_red")
    t = TicketTagger()
    assert (t.window, t.bits, t.levels, t.unit, t.variant) == (60.0, 8, 255, 1.0, "sender")
    assert (t.kind, t.kernel) == ("ticket-tagger", "edges.ticket_tagger")
    assert TicketRed(bits=None).levels == 0 and TicketTagger(bits=4).levels == 15


@pytest.mark.parametrize("value", [0, -5.0, float("nan"), float("inf")])
def test_tickets_must_be_positive_and_finite(value):
    with pytest.raises(ScenarioError, match=r"TicketRed.tickets must be"):
        TicketRed(tickets=value)
    with pytest.raises(ScenarioError, match=r"TicketTagger.tickets must be"):
        TicketTagger(tickets=value)
    with pytest.raises(ScenarioError, match=r"TicketTagger.tickets\[1\] must be"):
        TicketTagger(tickets=[100.0, value])


@pytest.mark.parametrize("value", ["100", True, {"a": 1}])
def test_tickets_must_be_numbers(value):
    with pytest.raises(ScenarioTypeError, match=r"TicketRed.tickets must be a ticket rate"):
        TicketRed(tickets=value)


def test_tagger_tickets_per_member():
    assert TicketTagger(tickets=300).member_tickets(2) == (300.0, 300.0)
    assert TicketTagger(tickets=[1, 2]).member_tickets(2) == (1.0, 2.0)
    assert TicketTagger().member_tickets(3) is None
    with pytest.raises(ScenarioError, match=r"gives 2 ticket rates for an aggregate of 3 flows"):
        TicketTagger(tickets=[1, 2]).member_tickets(3)
    with pytest.raises(ScenarioError, match=r"must not be empty"):
        TicketTagger(tickets=[])


@pytest.mark.parametrize("value", [1.0, 0.9, 0.0, -2.0])
def test_k_must_exceed_one(value):
    with pytest.raises(ScenarioError, match=r"TicketRed.k must be > 1 .*the paper's is 1.4\), "
                                            rf"got {value!r}"):
        TicketRed(k=value)


@pytest.mark.parametrize("field", ["window", "min_interval"])
@pytest.mark.parametrize("value", [0.0, -1.0, float("inf")])
def test_windows_must_be_positive(field, value):
    with pytest.raises(ScenarioError, match=rf"TicketRed.{field} must be"):
        TicketRed(**{field: value})
    if field == "window":
        with pytest.raises(ScenarioError, match=r"TicketTagger.window must be"):
            TicketTagger(window=value)


@pytest.mark.parametrize("bits", [0, 25, -1])
def test_bits_in_range(bits):
    with pytest.raises(ScenarioError, match=r"bits must be"):
        TicketRed(bits=bits)


def test_unit_and_choices():
    with pytest.raises(ScenarioError, match=r"TicketTagger.unit must be > 0"):
        TicketTagger(unit=0)
    with pytest.raises(ScenarioError, match=r"TicketRed.rule must be one of \['tcp', 'udp'\]"):
        TicketRed(rule="quic")
    with pytest.raises(ScenarioError, match=r"variant must be one of \['sender', 'receiver'\]"):
        TicketTagger(variant="both")
    with pytest.raises(ScenarioError, match=r"the UDP rule is sender-based"):
        TicketRed(rule="udp", variant="receiver")
    with pytest.raises(ScenarioTypeError, match=r"TicketRed.police must be True or False"):
        TicketRed(police=1)


def test_red_rules_still_apply():
    with pytest.raises(ScenarioError, match=r"^TicketRed.min_th must be below TicketRed.max_th"):
        TicketRed(min_th=10, max_th=5)


@pytest.mark.parametrize("tag, levels, unit, want", [
    (9.6, 255, 1.0, 10.0),        # whole tickets: round to the nearest
    (9.4, 255, 1.0, 9.0),
    (0.2, 255, 1.0, 1.0),         # at least one level: a tag is never zero
    (300.0, 255, 1.0, 255.0),     # saturates at 2^8 - 1
    (9.6, 255, 0.125, 9.625),     # 76.8 levels -> 77
    (math.inf, 255, 0.5, 127.5),
    (9.6, 0, 1.0, 9.6),           # unquantised
])
def test_quantise(tag, levels, unit, want):
    assert quantise(tag, levels, unit) == want


def test_reissue_is_a_time_and_a_ticket_rate_on_a_link_issued_tickets():
    # Section 3.4: "after 300 seconds, the t/s issued to link (S_0, S_3) changes from 1000
    # to 600"
    q = TicketRed(tickets=1000, reissue=[300, 600])
    assert q.reissue == (300.0, 600.0) and TicketRed(tickets=1.0).reissue is None
    assert (q.issued_at(0.0), q.issued_at(299.999), q.issued_at(300.0)) == (1000, 1000, 600)
    with pytest.raises(ScenarioError, match=r"issued none \(tickets=None\); give the link"):
        TicketRed(reissue=(300.0, 600.0))
    for bad in ((-1.0, 600.0), (math.inf, 600.0)):
        with pytest.raises(ScenarioError, match=r"TicketRed.reissue\[0\] must be"):
            TicketRed(tickets=1.0, reissue=bad)
    for bad in ((300.0, 0.0), (300.0, math.nan)):
        with pytest.raises(ScenarioError, match=r"TicketRed.reissue\[1\] must be"):
            TicketRed(tickets=1.0, reissue=bad)
    for bad in (300.0, (300.0,), "300,600", (1.0, 2.0, 3.0)):
        with pytest.raises(ScenarioTypeError, match=r"reissue must be a pair \(time in s"):
            TicketRed(tickets=1.0, reissue=bad)
