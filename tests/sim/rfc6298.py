"""RFC 6298's RTT estimator written out in plain Python: the reference the TCP tests use.

Section 2: the first sample R sets SRTT = R, RTTVAR = R / 2; each later one
RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R|, then SRTT = 7/8 SRTT + 1/8 R; RTO = SRTT + 4 RTTVAR.
"""


def estimator(samples):
    """(SRTT, RTTVAR, SRTT + 4 RTTVAR) after the given RTT samples, s."""
    srtt = rttvar = None
    for r in samples:
        if srtt is None:
            srtt, rttvar = r, r / 2
        else:
            rttvar = 0.75 * rttvar + 0.25 * abs(srtt - r)
            srtt = 0.875 * srtt + 0.125 * r
    return srtt, rttvar, srtt + 4 * rttvar
