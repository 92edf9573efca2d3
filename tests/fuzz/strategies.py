"""Hypothesis strategies for the fuzz suite: values a user might pass, good and bad.

``QOSMODELS_FUZZ_EXAMPLES`` sets the examples per test (default 25 in CI; for a long run,
e.g. ``QOSMODELS_FUZZ_EXAMPLES=2000 pytest tests/fuzz``).
"""

from __future__ import annotations

import dataclasses
import os

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

EXAMPLES = int(os.environ.get("QOSMODELS_FUZZ_EXAMPLES", "25"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 25,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                       HealthCheck.data_too_large])

#: Numbers across every scale and sign, with the special values.
nasty_floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1e-320, 1e-300, 1e-9, 0.5, 1.0, 2.0, 1e9, 1e300, 2.0**63,
                     float("nan"), float("inf"), -1.0, -1e-9]),
)
nasty_ints = st.one_of(st.integers(-2**70, 2**70),
                       st.sampled_from([0, 1, -1, 2**31, 2**63, 2**64, -2**63]))
not_numbers = st.sampled_from(["1", "", None, True, False, [1.0], (1,), {"a": 1}, 1j, b"1"])
#: Anything a numeric field could be given.
any_value = st.one_of(nasty_floats, nasty_ints, not_numbers)
#: Plausible values, for runs that should go through.
sane_positive = st.floats(1e-3, 1e3)


def numeric_fields(cls) -> list[str]:
    """The fields of a spec dataclass that take numbers (by their defaults' types)."""
    out = []
    for f in dataclasses.fields(cls):
        default = f.default
        if isinstance(default, bool) or f.name in ("green", "priority"):
            continue
        if isinstance(default, (int, float)) or default is None and f.name in (
                "packet_size", "initial_ssthresh", "window", "tickets"):
            out.append(f.name)
    return out


def error_names(exc: Exception, owner: str, field: str) -> bool:
    """Whether an error's message names the field (``Owner.field``, or the field alone)."""
    text = str(exc)
    return f"{owner}.{field}" in text or field in text
