"""The test suite; it mirrors the package (``tests/sim/`` tests ``qosmodels/sim/``).

Every test directory is a package, so pytest imports ``tests/sim/test_tcp.py``
as ``tests.sim.test_tcp`` and ``tests/mechanisms/test_tcp.py`` as
``tests.mechanisms.test_tcp``: files of the same name in different
directories cannot collide, and a test may import a helper from another
(``from tests.sim.test_engine import mixed_network``, run from the
repository root).
"""
