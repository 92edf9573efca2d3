"""The link and dispatch functions the queue tests' jitted drivers call, from one kernel variant.

``test_abe_queue.py``, ``test_ered.py``, ``test_red_spacing.py`` and ``test_ticket_red.py``
drive one link's queue from jitted code of their own (not cached: Numba's cache would not
see a change in the kernel functions they call, so they compile in every test run).  Taken
from the whole kernel, ``dispatch.queue_admit`` and the link's ``enqueue`` and ``dequeue``
branch to every queue discipline, and compiling them cost about 40 s of the test run
(session 51).  They come instead from the kernel variant (:mod:`qosmodels.sim._variant`)
for the core set and the disciplines these tests drive: the same code with the other
mechanisms' dispatch branches left out, which ``tests/sim/test_variant.py`` checks against
the whole kernel bit for bit.  One variant for the four files, so that its functions
compile once.
"""

from __future__ import annotations

import importlib

from qosmodels.sim._variant import CORE, variant_package

#: The mechanisms of the variant: the core set (drop-tail, RED, ...) and the disciplines
#: the queue tests drive.
MECHANISMS = CORE | {"queues.abe", "queues.ered", "queues.ticket_red"}

_PACKAGE = variant_package(MECHANISMS).__name__
_link = importlib.import_module(f"{_PACKAGE}.link")
_dispatch = importlib.import_module(f"{_PACKAGE}.dispatch")

enqueue = _link.enqueue
dequeue = _link.dequeue
alloc = importlib.import_module(f"{_PACKAGE}.pool").alloc
queue_admit = _dispatch.queue_admit
queue_timer = _dispatch.queue_timer
