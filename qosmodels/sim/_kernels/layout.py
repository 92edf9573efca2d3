"""Column names of the simulator's flat arrays, event kinds and statuses.

The compile step (``qosmodels.sim.compile``) fills arrays with these columns;
the kernel (:mod:`.engine`) reads them.  Plain integer constants, so Numba
treats them as compile-time literals (pandapower's ``F_BUS = 0`` style).
Mechanisms name the columns of their parameter rows (``LF_QP``, ``FF_SP``)
and their codes in their own kernel modules (``queues/``, ``sources/``).
"""

PARAM_ROW = 16  # length of a spec's packed parameter row

# ----------------------------------------------------------------- links, float columns
LF_CAP = 0          # bit/s
LF_DELAY = 1        # s
LF_QP = 2           # queue parameter row: LF_QP .. LF_QP + PARAM_ROW - 1
LF_RED_AVG = LF_QP + PARAM_ROW  # packets
LF_IDLE_SINCE = LF_RED_AVG + 1  # s
LF_BUSY = LF_IDLE_SINCE + 1     # s of transmission inside the measurement window
LF_BITS_W = LF_BUSY + 1         # bits departed inside the window
N_LF = LF_BITS_W + 1

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
N_LI = 16

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
FF_DEADLINE = FF_CWND + 5       # inf: timer off
FF_RTT_T0 = FF_CWND + 6
FF_ON_END = FF_CWND + 7         # on/off: end of the current on period
FF_QD_SUM = FF_CWND + 8         # sum of queueing delays of packets delivered in the window, s
FF_HIST_W = FF_CWND + 9         # width of a queueing-delay histogram bin, s
FF_BYTES_W = FF_CWND + 10       # bytes of unique packets received inside the window
FF_TIMER_AT = FF_CWND + 11      # time of the pending RTO event (while FI_TIMER is 1), s
N_FF = FF_TIMER_AT + 1

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
FI_TIMER = 12       # 1 while an RTO event is pending
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
FI_MARKED = 27      # data packets arriving marked
FI_ACKS_SENT = 28
FI_ACKS_ARRIVED = 29
FI_WINDOWED = 30
FI_FIRST_PARTIAL = 31  # 1 from a fast retransmit until the first partial ACK (timer rules)
FI_RENO_SACKED = 32    # recovery="pipe": duplicate ACKs counted as SACKed packets above SND.UNA
FI_HEAD_LOST = 33      # recovery="pipe": 1 while a SACK mark moved off SND.UNA left it marked lost
FI_ECN = 34            # 1: the flow's data packets are ECN-capable (a RED queue may mark them)
FI_PER_ACK = 35        # 1: an RTT sample from every new ACK (send-time ring in ``stime``)
FI_EARLY_TIMER = 36    # 1: a retransmission deadline moved earlier pushes a new timer event
N_FI = 37

# ----------------------------------------------------------------- packets
PI_FLOW = 0
PI_SEQ = 1
PI_HOP = 2
PI_ACK = 3          # 0 data, 1 acknowledgement
PI_MARK = 4         # bit 0: congestion experienced; bit 1: ECN echo (on ACKs)
PI_CLASS = 5
PI_USED = 6
N_PI = 7

PF_BITS = 0
PF_QDELAY = 1       # time spent waiting in queues so far, s
PF_ENQ = 2          # when it joined its current queue, s
N_PF = 3

# ----------------------------------------------------------------- globals
GI_HEAP_N = 0
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
N_GI = 13

GF_NOW = 0
GF_WARMUP = 1
GF_END = 2
GF_INTERVAL = 3
N_GF = 4

# ----------------------------------------------------------------- events (low 3 bits)
EV_TXDONE = 0       # payload: link
EV_ARRIVE = 1       # payload: packet
EV_TIMER = 2        # payload: flow
EV_SOURCE = 3       # payload: flow
EV_START = 4        # payload: flow
EV_STOP = 5         # payload: flow
EV_SAMPLE = 6       # payload: 0
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

STATUS_NAMES = {
    ST_OK: "ok",
    ST_HEAP_FULL: "event heap full",
    ST_POOL_FULL: "packet pool full",
    ST_MAX_EVENTS: "event budget exhausted",
    ST_RECEIVER_WINDOW: "receiver out-of-order buffer exceeded",
    ST_TRACE_FULL: "trace space full",
    ST_BAD_CLASS: "packet class beyond a priority queue's classes",
    ST_WORK_FULL: "deferred-work queue full",
}
