"""Mechanisms as data: queue disciplines, traffic sources and edge elements.

Each mechanism is a small frozen spec, validated when it is built, that a
:class:`~qosmodels.Link` (``queue=``), a :class:`~qosmodels.Flow`
(``source=``) or an :class:`~qosmodels.Aggregate` (``edge=``) holds.  The
same spec describes the mechanism to every analysis: the packet simulator
(whose kernel module for it is named by the spec's ``kernel``), the fluid
models (which read :class:`Red`'s parameters) and the closed forms.  This
package imports neither Numba nor the simulator.

Queues: :class:`DropTail`, :class:`Red`, :class:`Ered`, :class:`Priority`,
:class:`RandomLoss`, :class:`FairQueueing`, :class:`Decbit`, :class:`Rio` (RED with
In and Out, Clark and Fang 1998), :class:`TicketRed` (PPS's ticket-based RED), :class:`AbeQueue` (the Asymmetric
Best-Effort router), :class:`Avq` (Kunniyur and Srikant's Adaptive Virtual Queue),
:class:`Codel` (Controlled Delay, RFC 8289: drops at dequeue on sojourn time),
:class:`Drr` (Shreedhar and Varghese's deficit round robin),
:class:`FqCodel` (Flow Queue CoDel, RFC 8290), :class:`Pi` (Hollot et al.'s
PI controller), :class:`Pie` (PIE, RFC 8033: drops at enqueue on the queueing delay),
:class:`DualPi2` (RFC 9332's DualQ Coupled AQM: an L4S queue and a PI2 Classic queue).
Sources: :class:`TcpReno`, :class:`TcpNewReno`, :class:`TcpTahoe` (the fair-queueing
paper's JK: Tahoe-like, no fast recovery), :class:`GenericWindow`,
:class:`DecbitWindow`, :class:`Cbr`, :class:`Poisson`, :class:`OnOff`,
:class:`TcpFriendly` (a rate-based TCP-friendly source, ABE's Green source),
:class:`Accumulation` (ACC's window source: P, AIAD or Mo-Walrand law, Vegas estimators),
:class:`TcpVegas` (Brakmo and Peterson's TCP Vegas), :class:`WebTraffic` (web
connections: Pareto transfers over NewReno, exponential think times), :class:`Dctcp`
(Data Center TCP, RFC 8257: NewReno whose ECN reaction scales with the fraction marked),
:class:`Cubic` (CUBIC, RFC 9438), :class:`Prague` (TCP Prague, the L4S scalable sender),
:class:`BbrV1` (BBR version 1, draft-cardwell-iccrg-bbr-congestion-control-00),
:class:`Rap` (RAP, Rejaie, Handley and Estrin's rate-based AIMD source).
Every source takes ``green=True`` to send ABE Green packets.
Edge elements: :class:`AggregateBucket`, :class:`ProfileMarker` (Clark and Fang's TSW
tagger), :class:`TicketTagger` (PPS's ticket tagger).
"""

from ._base import EdgeSpec, QueueSpec, SourceSpec, Spec
from .abe import AbeQueue
from .acc import Accumulation
from .avq import Avq
from .bbr import BbrV1
from .codel import Codel
from .cubic import Cubic
from .dctcp import Dctcp
from .decbit import Decbit, DecbitWindow
from .droptail import DropTail
from .drr import Drr
from .dualpi2 import DualPi2
from .fair_queueing import FairQueueing
from .fqcodel import FqCodel
from .open_loop import Cbr, OnOff, Poisson
from .pi import Pi
from .pie import Pie
from .prague import Prague
from .priority import Priority
from .profile_marker import ProfileMarker
from .random_loss import RandomLoss
from .rap import Rap
from .red import Ered, Red
from .rio import Rio
from .tahoe import TcpTahoe
from .tcp import TcpNewReno, TcpReno
from .tcp_friendly import TcpFriendly
from .tickets import TicketRed, TicketTagger
from .token_bucket import AggregateBucket
from .vegas import TcpVegas
from .web import WebTraffic
from .window import GenericWindow

__all__ = [
    "Spec", "QueueSpec", "SourceSpec", "EdgeSpec",
    "DropTail", "Red", "Ered", "Priority", "RandomLoss", "FairQueueing", "Decbit", "Rio",
    "AbeQueue", "Avq", "Codel", "Drr", "FqCodel", "Pi", "Pie", "DualPi2",
    "TcpReno", "TcpNewReno", "TcpTahoe", "GenericWindow", "DecbitWindow", "Cbr", "Poisson", "OnOff",
    "TcpFriendly", "Accumulation", "TcpVegas", "WebTraffic", "Dctcp", "Cubic", "Prague", "BbrV1",
    "Rap",
    "AggregateBucket", "ProfileMarker", "TicketTagger", "TicketRed",
]
