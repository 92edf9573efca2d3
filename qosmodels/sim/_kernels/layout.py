"""Column names of the simulator's flat arrays, event kinds and statuses.

The compile step (``qosmodels.sim.compile``) fills arrays with these columns;
the kernel (:mod:`.engine`) reads them.  Plain integer constants, so Numba
treats them as compile-time literals (pandapower's ``F_BUS = 0`` style).
Mechanisms name the columns of their parameter rows (``LF_QP``, ``FF_SP``)
and their codes in their own kernel modules (``queues/``, ``sources/``).
"""

PARAM_ROW = 17  # length of a spec's packed parameter row

# ----------------------------------------------------------------- links, float columns
LF_CAP = 0          # bit/s
LF_DELAY = 1        # s
LF_QP = 2           # queue parameter row: LF_QP .. LF_QP + PARAM_ROW - 1
LF_RED_AVG = LF_QP + PARAM_ROW  # packets
LF_IDLE_SINCE = LF_RED_AVG + 1  # s
LF_BUSY = LF_IDLE_SINCE + 1     # s of transmission inside the measurement window
LF_BITS_W = LF_BUSY + 1         # bits departed inside the window
LF_QS = LF_BITS_W + 1           # the queue mechanism's float state: LF_QS .. LF_QS + N_QS - 1
N_QS = 12                       # (named by the kernel module, e.g. fair queueing's round number)
N_LF = LF_QS + N_QS

# ----------------------------------------------------------------- links, integer columns
LI_CODE = 0         # queue discipline code
LI_SLOT0 = 1        # first class slot of the link
LI_NSLOT = 2        # number of classes
LI_TX = 3           # packet in service, -1 when idle
LI_RED_COUNT = 4
LI_ARRIVALS = 5     # packets offered to the link (whole run)
LI_DEPARTURES = 6   # packets that finished transmission
LI_DROP_OVERFLOW = 7
LI_DROP_EARLY = 8   # RED's random drops
LI_DROP_FORCED = 9  # RED's drops above max_th
LI_MARKS = 10
LI_WAITING = 11     # packets waiting (all classes)
LI_MAX_WAITING = 12
LI_DEP_W = 13       # departures inside the window
LI_DROPS_W = 14     # drops (all causes) inside the window
LI_ARR_W = 15
LI_TRACE0 = 16      # the queue's first trace channel, -1: none (``trace.record``)
LI_TIMER0 = 17      # the queue's first timer slot (``timers``), -1: none
LI_QS = 18          # the queue mechanism's integer state: LI_QS .. LI_QS + N_QSI - 1
N_QSI = 4
LI_OOB = LI_QS + N_QSI  # the link's out-of-band lane: a FIFO ring (``slot`` row) served ahead
                        # of every discipline, -1: none (no flow's control packets cross it)
N_LI = LI_OOB + 1

# class slots (one FIFO ring per class of each link)
SL_OFF = 0          # offset of the ring in the shared ring array
SL_CAP = 1          # ring capacity = buffer, packets
SL_HEAD = 2
SL_COUNT = 3
N_SL = 4

# ----------------------------------------------------------------- flows, float columns
FF_BITS = 0         # data packet size, bits
FF_ACK_BITS = 1
FF_START = 2
FF_STOP = 3         # inf: never
FF_SP = 4           # source parameter row: FF_SP .. FF_SP + PARAM_ROW - 1
FF_CWND = FF_SP + PARAM_ROW
FF_SSTHRESH = FF_CWND + 1
FF_SRTT = FF_CWND + 2           # < 0: no sample yet
FF_RTTVAR = FF_CWND + 3
FF_RTO = FF_CWND + 4
FF_RTT_T0 = FF_CWND + 5
FF_ON_END = FF_CWND + 6         # on/off: end of the current on period
FF_QD_SUM = FF_CWND + 7         # sum of queueing delays of packets delivered in the window, s
FF_HIST_W = FF_CWND + 8         # width of a queueing-delay histogram bin, s
FF_BYTES_W = FF_CWND + 9        # bytes of unique packets received inside the window
FF_SS = FF_CWND + 10            # the source mechanism's float state: FF_SS .. FF_SS + N_SS - 1
N_SS = 14
FF_RTT_SUM_W = FF_SS + N_SS     # sum of the RTT samples the source's estimator took in the window, s
FF_ES = FF_RTT_SUM_W + 1        # the flow's edge element's float state for it (a member's tokens):
N_ES = 8                        # FF_ES .. FF_ES + N_ES - 1, named by the edge's kernel module
FF_QD_SQ = FF_ES + N_ES         # sum of squared queueing delays of FF_QD_SUM's packets, s^2
FF_QD_MAX = FF_QD_SQ + 1        # the largest of those queueing delays, s
FF_DA_TIMEOUT = FF_QD_MAX + 1   # the receiver's delayed-ACK timeout (``delack``), s
N_FF = FF_DA_TIMEOUT + 1

# ----------------------------------------------------------------- flows, integer columns
FI_CODE = 0
FI_CLASS = 1
FI_OOO_OFF = 2      # receiver's out-of-order bitmap: offset and mask (size - 1)
FI_OOO_MASK = 3
FI_SND_UNA = 4
FI_SND_NXT = 5
FI_MAXSEQ = 6
FI_RECOVER = 7
FI_RTT_SEQ = 8
FI_DUPACKS = 9
FI_IN_REC = 10
FI_TIMING = 11
FI_TIMER0 = 12      # first timer slot (``timers``); slot 0 of a window flow: its RTO
FI_RCV_NXT = 13
FI_APP_LIMIT = 14   # packets the application has handed over (greedy: huge)
FI_ACTIVE = 15
FI_SENT = 16        # data packets sent, retransmissions included (whole run)
FI_RETX = 17
FI_ARRIVED = 18     # data packets reaching the receiver, duplicates included
FI_DELIVERED = 19   # unique packets received: first copies, in order or not (whole run)
FI_DELIV_W = 20     # ... inside the window
FI_DROPS = 21       # data packets dropped
FI_TIMEOUTS = 22
FI_FAST_RTX = 23
FI_QD_N = 24        # packets in FF_QD_SUM
FI_ECN_RECOVER = 25
FI_ACK_DROPS = 26
FI_MARKED = 27      # data packets arriving marked (ECN CE or DECbit)
FI_ACKS_SENT = 28
FI_ACKS_ARRIVED = 29
FI_WINDOWED = 30      # 0: open loop; else 1 + (SACK blocks an ACK carries << SACK_SHIFT)
FI_FIRST_PARTIAL = 31  # 1 from a fast retransmit until the first partial ACK (timer rules)
FI_RENO_SACKED = 32    # recovery="pipe": duplicate ACKs counted as SACKed packets above SND.UNA
FI_HEAD_LOST = 33      # recovery="pipe": 1 while a SACK mark moved off SND.UNA left it marked lost
FI_ECN = 34            # ECN codepoint of the flow's data packets: 0 not-ECT, 1 ECT(0), 2 ECT(1)
                       # (RFC 3168, RFC 9331); a classic AQM marks any != 0, DualPi2 puts 2 in L
FI_PER_ACK = 35        # an RTT sample from every new ACK (send-time ring in ``stime``): 1 with
                       # Karn's rule (a retransmitted packet is not timed), 2 timed from its
                       # first transmission (the fair-queueing paper's generic source)
FI_EARLY_TIMER = 36    # 1: a retransmission deadline moved earlier pushes a new timer event
FI_TRACE0 = 37         # the source's first trace channel, -1: none
FI_SS = 38             # the source mechanism's integer state: FI_SS .. FI_SS + N_SSI - 1
N_SSI = 4
FI_RTT_N_W = FI_SS + N_SSI  # RTT samples in FF_RTT_SUM_W
FI_RETX_W = FI_RTT_N_W + 1  # data packets retransmitted inside the window
FI_DROPS_W = FI_RETX_W + 1  # data packets dropped inside the window
FI_ARRIVED_W = FI_DROPS_W + 1  # data packets reaching the receiver inside the window, copies too
FI_EDGE = FI_ARRIVED_W + 1     # the edge element the flow's data cross first (``ei`` row), -1: none
FI_MEMBER = FI_EDGE + 1        # the flow's number among the edge's members
FI_EDGE_HOLD = FI_MEMBER + 1   # the flow's hold at the edge: a FIFO ring (``slot`` row) of packets
FI_ES = FI_EDGE_HOLD + 1         # the edge's integer state for the flow: FI_ES .. FI_ES + N_ESI - 1
N_ESI = 2
FI_EDGE_IN = FI_ES + N_ESI     # data packets the edge let through in profile (whole run)
FI_EDGE_OUT = FI_EDGE_IN + 1   # ... out of profile (sent unmarked)
FI_EDGE_IN_W = FI_EDGE_OUT + 1   # ... in profile, inside the window
FI_EDGE_OUT_W = FI_EDGE_IN_W + 1  # ... out of profile, inside the window
FI_EDGE_DROPS = FI_EDGE_OUT_W + 1  # data packets the edge dropped (policed, or its hold full)
FI_EDGE_HELD = FI_EDGE_DROPS + 1   # data packets the edge held back (shaping)
FI_EDGE_BLOCKED = FI_EDGE_HELD + 1  # times the edge kept a window sender from sending (shaping)
FI_MARK0 = FI_EDGE_BLOCKED + 1     # the mark bits each data packet starts with (MARK_GREEN: an
                                   # ABE Green flow)
# the receiver's delayed ACKs (``delack``; RFC 1122 4.2.3.2, RFC 5681 4.2)
FI_DA_M = FI_MARK0 + 1         # an ACK for every m-th in-order packet; 0 or 1: every packet at once
FI_DA_HELD = FI_DA_M + 1       # packets received and not yet acknowledged
FI_DA_CE = FI_DA_HELD + 1      # DCTCP echo: the CE state (RFC 8257 3.2); else a held packet had CE
FI_DA_DCTCP = FI_DA_CE + 1     # 1: DCTCP's two-state echo; 0: ECE if a covered packet had CE
FI_DA_HIGH = FI_DA_DCTCP + 1   # one past the highest sequence number received (a hole below it)
FI_DA_SLOT = FI_DA_HIGH + 1    # the delayed-ACK timer's slot among the flow's (``timers``), -1: none
FI_GROW_PACKETS = FI_DA_SLOT + 1  # 1: the sender grows per packet an ACK acknowledges (Linux),
                                 # 0: per ACK of new data (RFC 5681); ``ack_counting``
FI_RACK = FI_GROW_PACKETS + 1  # RACK-TLP (RFC 8985, ``rack``/``rackstate``): 0 off, 1 RACK,
                               # 2 RACK and TLP (a SACK flow only)
N_FI = FI_RACK + 1

#: ``FI_WINDOWED >> SACK_SHIFT``: the SACK blocks (RFC 2018) the flow's ACKs carry, 0: no
#: SACK (``sack.py`` lays out such a flow's ``stime`` region)
SACK_SHIFT = 1

# ----------------------------------------------------------------- edge elements (``ef``, ``ei``)
# one row per aggregate with an edge element; its member flows in rows EI_M0 .. EI_M0 + EI_N - 1
# of ``e_mem``
EF_EP = 0           # parameter row: EF_EP .. EF_EP + PARAM_ROW - 1
EF_ES = EF_EP + PARAM_ROW  # the element's float state: EF_ES .. EF_ES + N_EFS - 1
N_EFS = 8
N_EF = EF_ES + N_EFS
EI_CODE = 0         # edge element code
EI_M0 = 1           # first member's row in ``e_mem``
EI_N = 2            # number of members
EI_TIMER0 = 3       # first timer slot, -1: none
EI_TRACE0 = 4       # first trace channel, -1: none
EI_ES = 5           # the element's integer state: EI_ES .. EI_ES + N_EIS - 1
N_EIS = 4
N_EI = EI_ES + N_EIS

EM_FLOW = 0         # ``e_mem`` columns: a member flow
EM_ORDER = 1        # the element's scratch space (an order of its members)
N_EM = 2

# an edge's verdict on a data packet leaving its sender (``dispatch.edge_ingress``)
EDGE_PASS = 0       # on to the first link (the edge may have marked it)
EDGE_GONE = 1       # dropped or held by the edge (it forwards a held packet later itself)

# ----------------------------------------------------------------- timer slots
TM_DEADLINE = 0     # s; inf: off
TM_AT = 1           # time of the pending event (while TMI_PENDING), s
N_TM = 2
TMI_PENDING = 0     # 1 while an event for the slot is in the heap
TMI_OWNER_KIND = 1  # OWNER_*
TMI_OWNER = 2       # the owning link or flow
TMI_K = 3           # the slot's number among its owner's
N_TMI = 4
OWNER_LINK = 0
OWNER_FLOW = 1
OWNER_EDGE = 2

# ----------------------------------------------------------------- packets
PI_FLOW = 0         # -1 while the packet is free (in the pool)
PI_SEQ = 1
PI_HOP = 2
PI_KIND = 3         # KIND_*: data, acknowledgement, in-band or out-of-band control
PI_MARK = 4         # MARK_* bits
PI_CLASS = 5        # class slot at a multi-class queue, chosen per packet (default: its flow's)
PI_QPOS = 6         # position in its link's sorted queue (``sorted_queue``), -1 if in none
PI_NEXT = 7         # the packet behind it on the same hop, propagating (``heap``'s pipes), -1: none
N_PI = 8

# packet kinds (PI_KIND)
KIND_DATA = 0
KIND_ACK = 1
KIND_CTRL_IN = 2    # control packet travelling with the data (in-band)
KIND_CTRL_OUT = 3   # control packet served ahead of data (out-of-band)

# mark bits (PI_MARK)
MARK_CE = 1         # ECN congestion experienced (data)
MARK_ECE = 2        # ECN echo (ACK)
MARK_DECBIT = 4     # DECbit congestion indication
MARK_IN_PROFILE = 8 # in profile (a marker or policer's verdict)
MARK_GREEN = 16     # ABE colour: Green (else Blue); set from the flow's FI_MARK0 when sent
MARK_CTRL = 32      # a control packet (Monaco's pair, its echo): not data, never goodput
MARK_OOB = 64       # out of band: served ahead of data at every link (the link's LI_OOB lane)

PF_BITS = 0
PF_QDELAY = 1       # time spent waiting in queues so far, s
PF_ENQ = 2          # when it joined its current queue, s
PF_TAG0 = 3         # two float tags a mechanism may set (a bid, a deadline, tickets,
PF_TAG1 = 4         # a virtual delay); 0 when the packet is sent
PF_VDELAY = 5       # virtual delays summed on the way, s (AVD links add theirs to Monaco's
                    # in-band control packet; 0 when sent)
PF_ARRIVAL = 6      # while it propagates in a pipe (``heap``): when it reaches the hop's end, s
PF_ORDER = 7        # ... and its event's order (push counter), exact as a float
PF_COUNT = 8        # Monaco's in-band control packet: the data packets its sender had sent
N_PF = 9

# ----------------------------------------------------------------- the event heap's rows (``heap``)
HV_T = 0            # the event's time, s
HV_O = 1            # its order (push counter), exact as a float
HV_D = 2            # its payload (``kind | index << EV_BITS``), exact as a float
N_HV = 3

# the pipes' rows (``heap``): one pipe per link, then one per distinct delay of the stretches of
# undeclared reverse links (a stretch's ``a_link`` entry is -1 - its number among these)
PP_HEAD = 0         # the first packet propagating on it, -1: none
PP_TAIL = 1         # the last
N_PP = 2

# ----------------------------------------------------------------- globals
GI_HEAP_N = 0       # events in the main heap (``heap``)
GI_ORDER = 1
GI_FREE_TOP = 2     # free-list stack height
GI_EVENTS = 3
GI_SAMPLE = 4       # next sample index
GI_NSAMPLE = 5
GI_HEAP_MAX = 6
GI_POOL_MAX = 7     # most packets alive at once
GI_CWND_TRACE = 8
GI_NBINS = 9
GI_STATUS = 10     # set by a handler that hits a limit; the loop returns it
GI_WORK_HEAD = 11  # FIFO of deferred work (forward a packet, let a flow send)
GI_WORK_N = 12
GI_TRACE_N = 13    # trace points recorded (``trace.record``)
GI_TIMER_N = 14    # events in the timers' heap (``heap``)
GI_HEAP_CAP = 15   # events the heaps hold together; the main heap's rows, the timers' first row
GI_TIMER_CAP = 16  # rows of the timers' heap
GI_PIPED = 17      # packets propagating in the pipes behind their pipe's head (events not in a heap)
N_GI = 18

GF_NOW = 0
GF_WARMUP = 1
GF_END = 2
GF_INTERVAL = 3
N_GF = 4

# ----------------------------------------------------------------- events (low 3 bits)
EV_TXDONE = 0       # payload: link
EV_ARRIVE = 1       # payload: packet
EV_TIMER = 2        # payload: timer slot
EV_SOURCE = 3       # payload: flow
EV_START = 4        # payload: flow
EV_STOP = 5         # payload: flow
EV_SAMPLE = 6       # payload: 0
EV_PIPE = 7         # payload: pipe (``heap``): its head packet reaches the hop's end
EV_BITS = 3

# deferred work items (low bit): handlers append them, the loop drains them in order
W_FORWARD = 0       # payload: packet to hand to the next hop of its path
W_SEND = 1          # payload: flow whose window may have opened
W_BITS = 1

# ----------------------------------------------------------------- statuses
ST_OK = 0
ST_HEAP_FULL = 1
ST_POOL_FULL = 2
ST_MAX_EVENTS = 3
ST_RECEIVER_WINDOW = 4
ST_TRACE_FULL = 5
ST_BAD_CLASS = 6
ST_WORK_FULL = 7
ST_CHANNELS_FULL = 8
ST_SACK_RING = 9

STATUS_NAMES = {
    ST_OK: "ok",
    ST_HEAP_FULL: "event heap full",
    ST_POOL_FULL: "packet pool full",
    ST_MAX_EVENTS: "event budget exhausted",
    ST_RECEIVER_WINDOW: "receiver out-of-order buffer exceeded",
    ST_TRACE_FULL: "trace space full",
    ST_BAD_CLASS: "packet class beyond a priority queue's classes",
    ST_WORK_FULL: "deferred-work queue full",
    ST_CHANNELS_FULL: "trace-channel buffer full",
    ST_SACK_RING: "SACK option ring overwritten before its ACK arrived",
}

#: ``queue_select``'s answer for a discipline that keeps its packets in the class rings.
RINGS = -2
