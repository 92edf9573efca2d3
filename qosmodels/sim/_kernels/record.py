"""The recorded time series: cumulative goodput, queue lengths and windows at each sample time."""

import numpy as np

from ._jit import rare_handler
from .dispatch import source_window
from .heap import push
from .layout import (
    EV_SAMPLE,
    FF_BITS,
    FI_CODE,
    FI_DELIVERED,
    FI_WINDOWED,
    GF_INTERVAL,
    GI_CWND_TRACE,
    GI_NSAMPLE,
    GI_SAMPLE,
    GI_STATUS,
    LI_WAITING,
    ST_TRACE_FULL,
)


@rare_handler
def on_sample(S):
    gi, fi = S.gi, S.fi
    k = gi[GI_SAMPLE]
    if k >= gi[GI_NSAMPLE]:
        gi[GI_STATUS] = ST_TRACE_FULL
        return
    for f in range(fi.shape[0]):
        S.thr_s[k, f] = fi[f, FI_DELIVERED] * S.ff[f, FF_BITS]
    for l in range(S.li.shape[0]):
        S.q_s[k, l] = S.li[l, LI_WAITING]
    if gi[GI_CWND_TRACE] != 0:
        for f in range(fi.shape[0]):
            w = source_window(S, fi[f, FI_CODE], f, fi[f, FI_WINDOWED] != 0)
            if not np.isnan(w):
                S.cw_s[k, f] = w
    gi[GI_SAMPLE] = k + 1
    if k + 1 < gi[GI_NSAMPLE]:
        push(S, (k + 1) * S.gf[GF_INTERVAL], EV_SAMPLE)
