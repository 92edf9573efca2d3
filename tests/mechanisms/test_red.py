"""qosmodels.mechanisms.red: Red's validation rules, one test each (DESIGN.md, practice 1)."""

import dataclasses

import pytest

from qosmodels import ScenarioError
from qosmodels.errors import ScenarioTypeError
from qosmodels.mechanisms import Red


@pytest.mark.parametrize("make, match", [
    (lambda: Red(min_th=10, max_th=5), r"Red.min_th must be below Red.max_th"),
    (lambda: Red(min_th=5, max_th=5), r"Red.min_th must be below Red.max_th, got min_th = 5.0"),
    (lambda: Red(min_th=-1), r"Red.min_th must be >= 0 \(in packets\)"),
    (lambda: Red(min_th=0, max_th=0), r"Red.max_th must be > 0 \(in packets\)"),
    (lambda: Red(max_p=0.0), r"Red.max_p must be > 0"),
    (lambda: Red(max_p=1.5), r"Red.max_p must be in \(0, 1\]"),
    (lambda: Red(w_q=0.0), r"Red.w_q must be > 0"),
    (lambda: Red(w_q=2.0), r"Red.w_q must be in \(0, 1\]"),
    (lambda: Red(w_q=float("nan")), r"Red.w_q must be finite"),
    (lambda: Red(typical_packet_size=0), r"Red.typical_packet_size must be >= 1 \(in bytes\)"),
    (lambda: Red(typical_packet_size=999.5), r"Red.typical_packet_size must be a whole number"),
])
def test_bad_red(make, match):
    with pytest.raises(ScenarioError, match=match):
        make()


@pytest.mark.parametrize("field", ["gentle", "mark", "ecn"])
def test_red_flags_must_be_booleans(field):
    with pytest.raises(ScenarioTypeError, match=rf"Red.{field} must be True or False, got 1"):
        Red(**{field: 1})


def test_red_thresholds_must_be_numbers():
    with pytest.raises(ScenarioTypeError, match=r"Red.max_th must be a real number"):
        Red(max_th="15")


def test_red_accepts_its_boundaries_and_normalises_types():
    r = Red(min_th=0, max_th=1, max_p=1, w_q=1, typical_packet_size=1500.0)
    assert (r.min_th, r.max_th, r.max_p, r.w_q) == (0.0, 1.0, 1.0, 1.0)
    assert type(r.min_th) is float and type(r.typical_packet_size) is int
    assert (r.kind, r.kernel, r.n_classes) == ("red", "queues.red", 1)


def test_red_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Red().max_p = 0.5


def test_ecn_is_the_name_and_mark_its_older_synonym():
    # issue 35: Red(ecn=True) marks instead of dropping early, as Red(mark=True) always did
    assert Red(ecn=True) == Red(mark=True) == Red(ecn=True, mark=True)
    assert (Red(ecn=True).mark, Red(mark=True).ecn) == (True, True)
    assert (Red().ecn, Red().mark) == (False, False)
    assert Red(ecn=False) == Red(mark=False) == Red()
    # a copy of every field (as pps.tred_network makes) gives the same queue
    r = Red(ecn=True)
    assert Red(**{f.name: getattr(r, f.name) for f in dataclasses.fields(Red)}) == r


def test_ecn_and_mark_must_agree_when_both_are_given():
    with pytest.raises(ScenarioError, match=r"Red.ecn = True and Red.mark = False disagree: "
                                            r"mark is the older name of ecn"):
        Red(ecn=True, mark=False)
