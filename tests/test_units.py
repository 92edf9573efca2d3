"""People's units to SI."""

import pytest

from qosmodels import units


def test_conversions():
    assert units.Mbps(10) == 1e7 and units.kbps(500) == 5e5 and units.Gbps(1) == 1e9
    assert units.ms(20) == pytest.approx(0.02) and units.us(5) == pytest.approx(5e-6)
    assert units.KB(3) == 3000 and units.MB(1) == 1e6
    assert units.to_Mbps(units.Mbps(7)) == 7 and units.to_ms(units.ms(3)) == pytest.approx(3)
