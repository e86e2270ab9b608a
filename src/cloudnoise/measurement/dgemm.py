"""The DGEMM rate of the machine a campaign measures, kept in its metadata.

A profile built from a campaign (`cloudnoise model build`) gives `gemm:N`
phases this rate, labelled `measured`, instead of a built-in system's CPU
peak x efficiency. It is timed once per campaign, on the launching host,
the way `cloudnoise.schedules.compute_model` times DGEMM for a simulation
without a profile: numpy's BLAS, N = 1024, one thread per rank (one rank
per core, as the campaign's ranks ran; `$CLOUDNOISE_GEMM_THREADS` changes
it), the median of 5 samples, cached per machine. It is a per-rank figure
of the launching host, not of a remote node the launcher may have used.
"""

from __future__ import annotations

from typing import Any

from cloudnoise.errors import CloudnoiseError
from cloudnoise.measurement.campaign import Campaign

DGEMM_N = 1024


def record_dgemm(campaign: Campaign) -> None:
    """Adds `compute` (the DGEMM rate of this machine) to the campaign's
    metadata once; a campaign that has it keeps it (a resumed or extended
    campaign does not time it again). A failed timing is noted, never fatal:
    it must not cost a measurement."""
    if "compute" in campaign.meta:
        return
    from cloudnoise.schedules.compute_model import measured_dgemm

    try:
        m, _ = measured_dgemm(DGEMM_N)
    except CloudnoiseError as err:
        campaign.meta["compute"] = {"error": str(err)}
        return
    record: dict[str, Any] = {
        "dgemm_n": m.n,
        "seconds": m.seconds,
        "gflops": round(m.gflops, 3),
        "threads": m.threads,
        "cpu": m.cpu,
        "blas": m.blas,
        "measured_at": m.measured_at,
    }
    campaign.meta["compute"] = record
