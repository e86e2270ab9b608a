"""Helpers shared by the tests of `cloudnoise measure` (not a test module)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import cloudnoise
from cloudnoise.errors import CloudnoiseError

SRC = str(Path(cloudnoise.__file__).resolve().parents[1])


def mpi_or_skip() -> None:
    """Skip (with the reason) when no MPI can be found at all."""
    from cloudnoise.measurement.mpi import find_mpi

    try:
        find_mpi()
    except CloudnoiseError as err:
        pytest.skip(f"no MPI on this machine: {err}")


def env(**extra: str) -> dict[str, str]:
    """The environment for a `cloudnoise` subprocess running this checkout."""
    out = dict(os.environ)
    out["PYTHONPATH"] = SRC + (os.pathsep + out["PYTHONPATH"] if out.get("PYTHONPATH") else "")
    out.update(extra)
    return out


def cloudnoise_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "cloudnoise", *args]


def run(*args: str, timeout: float = 60, **extra_env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cloudnoise_cmd(*args), capture_output=True, text=True,
                          timeout=timeout, env=env(**extra_env))


def run_json(*args: str, timeout: float = 60) -> dict[str, Any]:
    proc = run(*args, "--json", timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def write_chunk(path: Path, kind: int, stream: int, size: int, param: int, starts: Any, values: Any,
                seq0: int = 0, block: int = 8192) -> None:
    """Append samples to a chunk file in the probes' format (src/probes/cn_chunks.h),
    in blocks of at most `block` records; a sample that does not fit 32 bits goes
    alone in a wide block, as the probes do."""
    import numpy as np

    from cloudnoise.measurement.chunks import HEADER, MAGIC, NARROW, WIDE

    starts = np.asarray(starts, np.int64)
    values = np.asarray(values, np.int64)
    out = bytearray()
    i = 0
    while i < len(starts):
        fits = lambda j: 0 <= values[j] <= 0xFFFFFFFF and (j == i or 0 <= starts[j] - starts[j - 1] <= 0xFFFFFFFF)  # noqa: E731
        if not fits(i):
            n, width = 1, 16
        else:
            n = 1
            while n < block and i + n < len(starts) and fits(i + n):
                n += 1
            width = 8
        head = np.zeros(1, HEADER)
        head["magic"], head["rec_bytes"], head["kind"], head["count"] = MAGIC, width, kind, n
        head["stream"], head["size_bytes"], head["param"] = stream, size, param
        head["t0_ns"], head["seq0"] = starts[i], seq0 + i
        rec = np.zeros(n, NARROW if width == 8 else WIDE)
        rec["dt"][1:] = np.diff(starts[i:i + n])
        rec["value"] = values[i:i + n]
        out += head.tobytes() + rec.tobytes()
        i += n
    with open(path, "ab") as fh:
        fh.write(bytes(out))


def probe_processes(marker: str) -> list[int]:
    """Pids of processes (not this one) whose command line mentions `marker`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmd = fh.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmd:
            found.append(int(entry))
    return found
