"""Integer codes of the control laws and accumulation estimators the fluid kernel knows.

The kernel (:mod:`qosmodels.fluid._kernels`) is compiled once for every
scenario; the control law and the estimator reach it as these integer codes,
not as Python branches, so that Numba never has to compile a second version
(mechanisms are data).

Control laws (Xia et al. 2005, Section III-B), for a window ``w`` and an
accumulation estimate ``a`` with target ``a*`` (all in bits), ``P`` the flow's
packet size in bits:

=========  ===================================================================
``"P"``     eq (6): ``dw/dt = -(kappa / rtt) (a - a*)``
``"AIAD"``  eq (3): ``dw/dt = -(kappa P / rtt) sgn(a - a*)`` (kappa packets per RTT)
``"MW"``    eq (5): ``dw/dt = -(kappa / rtt) (rtt_p / rtt) P (a - a*) / w``
``"Reno"``  TCP Reno's fluid model (Misra, Gong and Towsley 2000), not an ACC law:
            ``dw/dt = P / rtt - (w / 2) m(t)``, ``m`` the marks per second that
            reach the sender (its rate one propagation round trip ago times the
            path's RED marking probability, 1 - prod (1 - p_l)); kappa, target
            and the estimator are unused
=========  ===================================================================

Estimators (Section IV):

=============  ================================================================
``"ideal"``     eq (1): the time-shifted sum of the flow's queued bits along its
                path, as the egress sees it, fed back over the reverse
                propagation delay
``"vegas"``     eqs (7)-(8), (11)-(12): ``(w / rtt) (rtt - rtt_p_hat)``, with
                ``rtt_p_hat`` the smallest RTT seen since the flow started plus
                ``rtt_p_error``; reverse-path queueing inflates it
``"vegas-k"``   as Vegas, but ``rtt_p_hat`` is the smallest RTT of the last
                ``vegas_k`` round trips (Mo et al.)
``"monaco"``    Section IV-B: forward queueing delay (the out-of-band /
                in-band control-packet gap) times an EWMA of the egress rate,
                measured at the receiver and fed back out of band
=============  ================================================================
"""

from __future__ import annotations

__all__ = ["CONTROLS", "ESTIMATORS", "control_code", "estimator_code"]

#: Control laws by name, with their kernel codes.
CONTROLS: dict[str, int] = {"P": 0, "AIAD": 1, "MW": 2, "RENO": 3}

#: Accumulation estimators by name, with their kernel codes.
ESTIMATORS: dict[str, int] = {"ideal": 0, "vegas": 1, "vegas-k": 2, "monaco": 3}

# kernel constants, mirrored in _kernels.py (kept in one place here for Python code)
CTRL_P, CTRL_AIAD, CTRL_MW, CTRL_RENO = 0, 1, 2, 3
EST_IDEAL, EST_VEGAS, EST_VEGAS_K, EST_MONACO = 0, 1, 2, 3


def control_code(name) -> int:
    """The kernel code of a control law name (``"P"``, ``"AIAD"``, ``"MW"``, ``"Reno"``;
    case-insensitive)."""
    from ..errors import ScenarioError, ScenarioTypeError

    if not isinstance(name, str):
        raise ScenarioTypeError(f"control must be one of {list(CONTROLS)}, got {name!r}")
    key = name.upper()
    if key not in CONTROLS:
        raise ScenarioError(f"control must be one of {list(CONTROLS)}, got {name!r}")
    return CONTROLS[key]


def estimator_code(name) -> int:
    """The kernel code of an estimator name (``"ideal"``, ``"vegas"``, ``"vegas-k"``, ``"monaco"``)."""
    from ..errors import ScenarioError, ScenarioTypeError

    if not isinstance(name, str):
        raise ScenarioTypeError(f"estimator must be one of {list(ESTIMATORS)}, got {name!r}")
    key = name.lower()
    if key not in ESTIMATORS:
        raise ScenarioError(f"estimator must be one of {list(ESTIMATORS)}, got {name!r}")
    return ESTIMATORS[key]
