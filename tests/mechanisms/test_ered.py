"""qosmodels.mechanisms.red.Ered: its validation rules, one test each (DESIGN.md, practice 1)."""

import dataclasses

import pytest

from qosmodels import ScenarioError
from qosmodels.errors import ScenarioTypeError
from qosmodels.mechanisms import Ered, Red


@pytest.mark.parametrize("value", [0.5, 0.0, -1.5, 0.999])
def test_marked_factor_below_one_is_refused_with_the_fix(value):
    with pytest.raises(ScenarioError, match=(
            rf"Ered.marked_factor must be >= 1 \(a marked packet's early-drop probability is "
            rf"divided by it; 1 is plain RED, the paper's default 1.5\), got {value!r}")):
        Ered(marked_factor=value)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_marked_factor_must_be_finite(value):
    with pytest.raises(ScenarioError, match=r"Ered.marked_factor must be finite"):
        Ered(marked_factor=value)


@pytest.mark.parametrize("value", ["1.5", None, True, [1.5]])
def test_marked_factor_must_be_a_number(value):
    with pytest.raises(ScenarioTypeError, match=r"Ered.marked_factor must be a real number, got "):
        Ered(marked_factor=value)


@pytest.mark.parametrize("make, match", [
    (lambda: Ered(min_th=10, max_th=5), r"Ered.min_th must be below Ered.max_th"),
    (lambda: Ered(max_p=1.5), r"Ered.max_p must be in \(0, 1\]"),
    (lambda: Ered(w_q=float("nan")), r"Ered.w_q must be finite"),
    (lambda: Ered(typical_packet_size=0), r"Ered.typical_packet_size must be >= 1 \(in bytes\)"),
])
def test_red_rules_apply_and_name_ered(make, match):
    with pytest.raises(ScenarioError, match=match):
        make()


def test_red_flags_are_checked_and_name_ered():
    with pytest.raises(ScenarioTypeError, match=r"Ered.gentle must be True or False, got 1"):
        Ered(gentle=1)


def test_red_messages_still_name_red():
    with pytest.raises(ScenarioError, match=r"^Red.min_th must be below Red.max_th"):
        Red(min_th=10, max_th=5)


def test_ered_defaults_boundaries_and_types():
    e = Ered()
    assert e.marked_factor == 1.5  # the paper's default (Mehra et al., Section 4.1)
    assert (e.min_th, e.max_th, e.max_p, e.w_q) == (Red().min_th, Red().max_th, Red().max_p,
                                                    Red().w_q)
    one = Ered(marked_factor=1)
    assert one.marked_factor == 1.0 and type(one.marked_factor) is float
    assert (e.kind, e.kernel, e.n_classes) == ("ered", "queues.ered", 1)
    assert isinstance(e, Red) and e != Red()  # a RED to the fluid models, not equal to one


def test_ered_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Ered().marked_factor = 2.0
