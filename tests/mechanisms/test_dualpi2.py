"""qosmodels.mechanisms.dualpi2.DualPi2: its defaults (RFC 9332's, and the declared
choices) and its validation rules, one test each (DESIGN.md, practice 1)."""

import dataclasses
import math

import pytest

from qosmodels import ScenarioError
from qosmodels.errors import ScenarioTypeError
from qosmodels.mechanisms import DualPi2, QueueSpec


def test_the_defaults_are_rfc_9332s():
    # RFC 9332 Figure 2: target 15 ms, k = 2, minTh 800 us, range 400 us, Th_len 1 packet;
    # Tupdate 16 ms, alpha 0.16 Hz, beta 3.2 Hz as the issue quotes; tshift 50 ms (ns-3's)
    q = DualPi2()
    assert (q.target, q.t_update, q.alpha, q.beta, q.k) == (0.015, 0.016, 0.16, 3.2, 2.0)
    assert (q.min_th, q.range, q.th_len, q.tshift, q.record) == (800e-6, 400e-6, 1, 0.05,
                                                                  False)
    assert isinstance(q, QueueSpec) and q.kind == "dualpi2" and q.kernel == "queues.dualpi2"


def test_fields_are_normalised_and_frozen():
    q = DualPi2(target=1, t_update=2, alpha=0, beta=3, k=1, min_th=0, range=0, th_len=4.0,
                tshift=0)
    assert all(isinstance(getattr(q, f), float)
               for f in ("target", "t_update", "alpha", "beta", "k", "min_th", "range",
                         "tshift"))
    assert q.th_len == 4 and isinstance(q.th_len, int)
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.k = 3.0


@pytest.mark.parametrize("field, value, match", [
    ("target", 0, r"DualPi2\.target must be > 0 \(in s\), got 0"),
    ("target", math.inf, r"DualPi2\.target must be finite \(in s\), got inf"),
    ("t_update", 1e-9, r"DualPi2\.t_update must be >= 1e-06 \(in s\), got 1e-09"),
    ("alpha", -0.1, r"DualPi2\.alpha must be >= 0 \(in 1/s\), got -0.1"),
    ("beta", math.nan, r"DualPi2\.beta must be finite \(in 1/s\), got nan"),
    ("k", 0, r"DualPi2\.k must be > 0, got 0"),
    ("k", -2, r"DualPi2\.k must be > 0, got -2"),
    ("min_th", -1e-3, r"DualPi2\.min_th must be >= 0 \(in s\), got -0.001"),
    ("range", -1e-4, r"DualPi2\.range must be >= 0 \(in s\), got -0.0001"),
    ("th_len", -1, r"DualPi2\.th_len must be >= 0 \(in packets\), got -1"),
    ("th_len", 1.5, r"DualPi2\.th_len must be a whole number \(in packets\), got 1.5"),
    ("tshift", -0.01, r"DualPi2\.tshift must be >= 0 \(in s\), got -0.01"),
    ("scheduler", "fifo", r"DualPi2\.scheduler must be one of \['tshift', 'wrr'\] \(the "
                          r"time-shifted FIFO or weighted round robin, RFC 9332 Section "
                          r"2\.5\.2\), got 'fifo'"),
    ("c_protection", 1.5, r"DualPi2\.c_protection must be <= 1, got 1.5"),
    ("c_protection", -0.1, r"DualPi2\.c_protection must be >= 0, got -0.1"),
])
def test_bad_values_are_refused_naming_the_field(field, value, match):
    with pytest.raises(ScenarioError, match=match):
        DualPi2(**{field: value})


@pytest.mark.parametrize("field", ["k", "target", "th_len", "c_protection"])
def test_non_numbers_are_refused(field):
    with pytest.raises(ScenarioTypeError, match=rf"DualPi2\.{field} must be"):
        DualPi2(**{field: "2"})


def test_the_scheduler_defaults_to_the_time_shifted_fifo_and_must_be_a_name():
    # the time-shifted FIFO as before (ns-3's); Linux's round robin protects the Classic
    # queue with 10 % (its c_protection default)
    q = DualPi2()
    assert (q.scheduler, q.c_protection) == ("tshift", 0.10)
    assert DualPi2(scheduler="wrr", c_protection=0.25).c_protection == 0.25
    with pytest.raises(ScenarioTypeError, match=r"DualPi2\.scheduler must be one of"):
        DualPi2(scheduler=1)


def test_record_must_be_a_boolean():
    with pytest.raises(ScenarioTypeError, match=r"DualPi2\.record must be True or False"):
        DualPi2(record=1)
