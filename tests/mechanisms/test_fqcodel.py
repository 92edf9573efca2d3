"""qosmodels.mechanisms.fqcodel.FqCodel: its defaults (RFC 8290's and Linux's), its
validation rules (one test each, DESIGN.md practice 1) and its documented classifier,
checked against an independent transcription of MurmurHash3's finaliser."""

import dataclasses
import math

import pytest

from qosmodels import ScenarioError
from qosmodels.errors import ScenarioTypeError
from qosmodels.mechanisms import FqCodel, QueueSpec


def murmur3_fmix32(h):
    # Appleby's MurmurHash3, fmix32, written out again here from its published definition
    h ^= h >> 16
    h = (h * 0x85EBCA6B) % 2**32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) % 2**32
    return h ^ (h >> 16)


def test_the_defaults_are_rfc_8290s():
    # RFC 8290, Section 5: 1024 queues, quantum = MTU (Linux: 1514 bytes with the Ethernet
    # header), CoDel's 5 ms and 100 ms
    q = FqCodel()
    assert (q.flows, q.quantum, q.target, q.interval, q.mtu) == (1024, 1514.0, 0.005, 0.1, 1514)
    assert (q.exact, q.ecn, q.perturbation) == (False, False, 0)
    assert isinstance(q, QueueSpec) and q.kind == "fq_codel" and q.kernel == "queues.fqcodel"


def test_fields_are_normalised_and_frozen():
    q = FqCodel(flows=16.0, quantum=300, target=1, interval=2, mtu=9000.0)
    assert q.flows == 16 and isinstance(q.flows, int)
    assert isinstance(q.quantum, float) and isinstance(q.target, float)
    assert q.mtu == 9000 and isinstance(q.mtu, int)
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.flows = 8


@pytest.mark.parametrize("field, unit", [("target", "s"), ("interval", "s"),
                                         ("quantum", "bytes")])
@pytest.mark.parametrize("value, match", [
    (0, r"must be > 0 \(in {u}\), got 0"),
    (-0.005, r"must be > 0 \(in {u}\), got -0.005"),
    (math.inf, r"must be finite \(in {u}\), got inf"),
    (math.nan, r"must be finite \(in {u}\), got nan"),
])
def test_times_and_quantum_must_be_positive_and_finite(field, unit, value, match):
    with pytest.raises(ScenarioError, match=rf"FqCodel\.{field} " + match.format(u=unit)):
        FqCodel(**{field: value})


def test_times_must_be_numbers():
    with pytest.raises(ScenarioTypeError,
                       match=r"FqCodel\.target must be a real number \(in s\), got '5ms'"):
        FqCodel(target="5ms")


@pytest.mark.parametrize("value, error, match", [
    (0, ScenarioError, r"FqCodel\.flows must be >= 1 \(in queues\), got 0"),
    (65537, ScenarioError, r"FqCodel\.flows must be <= 65536 \(in queues\), got 65537"),
    (2.5, ScenarioError, r"FqCodel\.flows must be a whole number \(in queues\), got 2.5"),
    ("1024", ScenarioTypeError, r"FqCodel\.flows must be an integer \(in queues\), got '1024'"),
])
def test_flows_must_be_a_whole_number_from_1_to_65536(value, error, match):
    with pytest.raises(error, match=match):
        FqCodel(flows=value)


@pytest.mark.parametrize("value, error, match", [
    (0, ScenarioError, r"FqCodel\.mtu must be >= 1 \(in bytes\), got 0"),
    (1514.5, ScenarioError, r"FqCodel\.mtu must be a whole number \(in bytes\), got 1514.5"),
    (None, ScenarioTypeError, r"FqCodel\.mtu must be an integer \(in bytes\), got None"),
])
def test_mtu_must_be_a_positive_whole_number_of_bytes(value, error, match):
    with pytest.raises(error, match=match):
        FqCodel(mtu=value)


@pytest.mark.parametrize("value, match", [
    (-1, r"FqCodel\.perturbation must be >= 0, got -1"),
    (2**32, r"FqCodel\.perturbation must be <= 4294967295, got 4294967296"),
])
def test_perturbation_is_a_32_bit_unsigned_integer(value, match):
    with pytest.raises(ScenarioError, match=match):
        FqCodel(perturbation=value)


@pytest.mark.parametrize("field", ["exact", "ecn"])
def test_flags_must_be_booleans(field):
    with pytest.raises(ScenarioTypeError,
                       match=rf"FqCodel\.{field} must be True or False, got 1"):
        FqCodel(**{field: 1})


@pytest.mark.parametrize("flows, perturbation", [(4, 0), (1024, 0), (1024, 123456789),
                                                 (7, 2**32 - 1)])
def test_bucket_is_the_documented_hash(flows, perturbation):
    q = FqCodel(flows=flows, perturbation=perturbation)
    for f in range(50):
        for ack in (False, True):
            h = murmur3_fmix32((2 * f + ack) ^ perturbation)
            assert q.bucket(f, ack=ack) == h * flows // 2**32
            assert 0 <= q.bucket(f, ack=ack) < flows


def test_sixteen_flows_on_four_queues_collide_and_spread():
    # the pigeonhole principle forces collisions; a usable hash still uses every queue
    q = FqCodel(flows=4)
    buckets = [q.bucket(f) for f in range(16)]
    assert sorted(set(buckets)) == [0, 1, 2, 3]
    assert max(buckets.count(b) for b in range(4)) <= 8
    # another perturbation, another pattern of collisions
    assert [FqCodel(flows=4, perturbation=99).bucket(f) for f in range(16)] != buckets
