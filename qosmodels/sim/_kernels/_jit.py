"""The decorator every kernel handler carries.

Handlers are module-level functions inlined into the event loop at Numba's IR
level (``inline="always"``): LLVM then sees one function, as it did when the
handlers were closures of ``run``, instead of calls passing dozens of array
descriptors (measured 1.8-2.0x slower on the benchmark dumbbells).  Only
``engine.run`` carries ``_nrt=False`` and the numpy error model; inlined
callees inherit both.
"""

from numba import njit

#: Decorator of kernel handlers: ``@handler`` on a module-level function.
handler = njit(inline="always")

#: The largest int64: an index and-ed with it is known to the compiler to be >= 0,
#: so Numba's negative-index wraparound code goes (indices are never negative;
#: a -1 sentinel is tested before masking).
POS = 0x7FFFFFFFFFFFFFFF

#: Decorator of handlers that run rarely (a flow's start and stop, sampling,
#: retransmission timers), and of the per-packet handlers of mechanisms off
#: the NewReno / drop-tail / RED path (fair queueing's admit, store and
#: select; DECbit's and AVQ's admit; RIO's admit and departure; the window,
#: DECbit, TCP-friendly and ACC sources' ACK handlers, ACC's send limit, the
#: on/off source's clock): compiled once as
#: real functions rather than copied into the loop, which keeps the loop's
#: compile time and memory down (each inlined level costs Numba's inliner a
#: copy of everything below it).  Moving the first eight took the compile from
#: scratch from about 160 s and 1.9 GB to 106 s and 0.85 GB; the next four (and
#: one shared copy of RED for ABE and TRED) took a few seconds more off, at a
#: few percent more run time for the mechanisms concerned (benchmarks/RESULTS.md).
#: Without reference counting, as the loop.
rare_handler = njit(error_model="numpy", _nrt=False)
