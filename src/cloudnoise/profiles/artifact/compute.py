"""A system's DGEMM rate from the artifact's compute runs.

description.csv's "Compute" row names a file prefix inside a run archive
(`compute/gemm_X_DATE/gemm_X_` or `../data/SYSTEM/RUN/gemm_`); the files
`PREFIXN.dat` hold one row per repetition, `N TIME(s) GFLOPs/s THEO_PEAK`.
The rate a `gemm:N` phase runs at in a profile is one number: the median
GFLOP/s of the largest N measured (the steady rate of one node's BLAS).
"""

from __future__ import annotations

import io
import lzma
import re
import tarfile
from pathlib import Path

import numpy as np

from cloudnoise.errors import CloudnoiseError, shown
from cloudnoise.model.profile import Compute
from cloudnoise.model.provenance import Provenance
from cloudnoise.profiles.artifact.runs import SYSTEMS, read_description


def _gemm_files(archive: Path, prefix: str) -> dict[int, bytes]:
    pattern = re.compile(re.escape(prefix) + r"(\d+)\.dat")
    out: dict[int, bytes] = {}
    try:
        with tarfile.open(archive, mode="r|xz") as tar:
            for member in tar:
                m = pattern.fullmatch(member.name.rsplit("/", 1)[-1])
                if m and member.isfile():
                    fh = tar.extractfile(member)
                    if fh is not None:
                        out[int(m.group(1))] = fh.read()
    except (OSError, tarfile.TarError, lzma.LZMAError, EOFError) as err:
        raise CloudnoiseError(f"{shown(archive)}: not a readable run archive (.tar.xz): {err}") from None
    return out


def compute_rate(artifact: Path, profile: str) -> Compute | None:
    """The profile's measured DGEMM rate, None where the stored copy has no compute run for it."""
    provider, instance = SYSTEMS[profile]
    row = read_description(artifact).get((provider, instance, "Compute", ""))
    if row is None:
        return None
    folder, prefix = row.rsplit("/", 1)
    archive = artifact / f"{folder}.tar.xz"
    if not archive.is_file():
        return None
    files = _gemm_files(archive, prefix)
    if not files:
        return None
    n = max(files)
    where = f"{folder}.tar.xz: {prefix}{n}.dat"
    try:
        rows = np.loadtxt(io.BytesIO(files[n]), comments="#", ndmin=2)
    except ValueError as err:
        raise CloudnoiseError(f"{where}: not rows of N, time, GFLOP/s, peak: {err}") from None
    if rows.shape[0] == 0 or rows.shape[1] < 3 or not np.isfinite(rows[:, 2]).all() or (rows[:, 2] <= 0).any():
        raise CloudnoiseError(f"{where}: expected rows of N, time, GFLOP/s, peak with positive rates")
    gflops = float(f"{float(np.median(rows[:, 2])):.6g}")
    text = (f"median of {rows.shape[0]} DGEMM repetitions at N = {n} (the largest measured), {where} of the "
            "paper's artifact data (DanieleDeSensi/cloud_noise_data), the compute run description.csv names")
    return Compute(Provenance("measured", text), gflops=gflops, note="one rank per node, the authors' DGEMM benchmark")
