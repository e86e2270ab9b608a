"""How long a compute phase takes: the compute model behind `gemm:N`.

A `gemm:N` phase is one double-precision matrix multiplication C = A x B of
N x N matrices on every rank, 2 N^3 floating-point operations. Its length
comes from, in order of precedence:

1. a flop rate given by the user (`--gflops R`, or `gemm:N:gflops=R` on the
   phase): 2 N^3 / (R x 10^9) seconds;
2. the system's rate, when the application runs on a profile that has one
   (`compute` in the profile: a built-in system's published CPU peak x a
   stated efficiency, or the DGEMM rate `measure` recorded on the machine a
   profile was built from; see cloudnoise.model.compute);
3. DGEMM timed on this machine with numpy's BLAS (`numpy.dot` on float64):
   a warm-up call, then 5 samples, each the mean over enough back-to-back
   calls to last at least 20 ms; the median sample is the time. The timing
   runs in a child process with the BLAS limited to `$CLOUDNOISE_GEMM_THREADS`
   threads (default 1: one rank per core, the usual MPI placement; `all`
   leaves the BLAS default). Single-threaded timing is also what survives a
   busy machine: with the cores shared, multithreaded OpenBLAS was measured
   at 0.1 GFLOP/s for N = 128 where one thread gave 36. Results are
   cached in `gemm.json` under the cache directory (`$CLOUDNOISE_CACHE_DIR`,
   else `$XDG_CACHE_HOME/cloudnoise`, else `~/.cache/cloudnoise`), keyed by N,
   the thread setting, the CPU model, the CPU count and numpy's BLAS (name
   and version), so a later run or another machine never reuses a foreign
   number.
   N above `MAX_TIMED_N` (1024) is not timed directly (an 8192^3 DGEMM takes
   minutes on a small machine): the time of N = 1024 is scaled by
   (N / 1024)^3, i.e. the large multiplication is assumed to run at the
   flop rate measured at 1024 (BLAS is near its peak there; cache effects at
   larger N are not modelled). The result says which method was used.

A `compute:T` phase takes exactly T (`2.5ms`, `800us`, ...).
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from cloudnoise.errors import CloudnoiseError
from cloudnoise.model.compute import ComputeRate

MAX_TIMED_N = 1024
SAMPLES = 5
MIN_SAMPLE_SECONDS = 0.02
CACHE_FILE = "gemm.json"
CACHE_FORMAT = "cloudnoise-gemm-cache/1"


@dataclass(frozen=True)
class ComputeTime:
    """A compute phase's length and where it came from."""

    seconds: float
    method: str  # "given", "gflops", "profile", "measured", "measured-scaled"
    detail: str = ""
    gflops: float | None = None  # the flop rate used (gemm phases)
    rate_kind: str = ""  # where the rate comes from: given, a provenance kind, or "this machine"

    @property
    def ps(self) -> int:
        return round(self.seconds * 1e12)


def gemm_flops(n: int) -> int:
    """Floating-point operations of an N x N x N DGEMM (a multiply-add is 2)."""
    return 2 * n**3


def cache_dir() -> Path:
    """Where measured DGEMM times are kept."""
    env = os.environ.get("CLOUDNOISE_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "cloudnoise"


def cpu_model() -> str:
    """The CPU's model name (from /proc/cpuinfo where there is one)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def blas_info() -> str:
    """numpy's BLAS as 'name version' (best effort)."""
    import numpy as np

    try:
        config = np.show_config(mode="dicts")  # numpy >= 1.26
        blas = config["Build Dependencies"]["blas"]
        return f"{blas.get('name', '?')} {blas.get('version', '?')}".strip()
    except Exception:  # noqa: BLE001 - older numpy: fall back to its version
        return f"numpy {np.__version__}"


def gemm_threads() -> str:
    """BLAS threads for timing: `$CLOUDNOISE_GEMM_THREADS` (a count or `all`), default 1."""
    value = os.environ.get("CLOUDNOISE_GEMM_THREADS", "1").strip().lower()
    if value == "all" or (value.isdigit() and int(value) >= 1):
        return value
    raise CloudnoiseError(f"CLOUDNOISE_GEMM_THREADS must be a positive integer or 'all', got {value!r}")


def machine_key(n: int) -> str:
    """The cache key of a DGEMM measurement of size N on this machine."""
    return f"dgemm n={n} threads={gemm_threads()} | cpu={cpu_model()} x{os.cpu_count()} | blas={blas_info()}"


def _load_cache(path: Path) -> dict[str, dict]:
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        return {}  # a corrupt cache is only a cache: measure again
    if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT:
        return {}
    entries = data.get("entries")
    return entries if isinstance(entries, dict) else {}


def _save_cache(path: Path, entries: dict[str, dict]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as f:
            json.dump({"format": CACHE_FORMAT, "entries": entries}, f, indent=1, sort_keys=True)
            tmp = f.name
        os.replace(tmp, path)
    except OSError:
        pass  # not being able to cache must not stop a simulation


_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")


def time_dgemm(n: int) -> float:
    """Median seconds of one N x N DGEMM, timed in a child process whose BLAS
    uses `gemm_threads()` threads (BLAS reads its thread count at load time)."""
    threads = gemm_threads()
    env = dict(os.environ)
    if threads != "all":
        env.update({v: threads for v in _THREAD_VARS})
    code = "import sys; from cloudnoise.schedules.compute_model import time_dgemm_here as t; print(repr(t(int(sys.argv[1]))))"
    pkg_root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (pkg_root, env.get("PYTHONPATH", "")) if p)
    try:
        out = subprocess.run([sys.executable, "-c", code, str(n)], env=env, capture_output=True, text=True, check=True)
        return float(out.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.CalledProcessError, ValueError, IndexError) as err:
        detail = getattr(err, "stderr", "") or str(err)
        raise CloudnoiseError(f"timing DGEMM {n} failed ({detail.strip().splitlines()[-1] if detail.strip() else err}); give --gflops instead") from None


def time_dgemm_here(n: int, samples: int = SAMPLES, min_sample_seconds: float = MIN_SAMPLE_SECONDS) -> float:
    """Median seconds of one N x N DGEMM with numpy's BLAS in this process."""
    import numpy as np

    rng = np.random.default_rng(0)
    a = rng.random((n, n))
    b = rng.random((n, n))
    c = np.empty((n, n))
    np.dot(a, b, out=c)  # warm-up: threads, page faults
    start = time.perf_counter()
    np.dot(a, b, out=c)
    once = max(time.perf_counter() - start, 1e-9)
    calls = max(1, int(min_sample_seconds / once))
    results = []
    for _ in range(samples):
        start = time.perf_counter()
        for _ in range(calls):
            np.dot(a, b, out=c)
        results.append((time.perf_counter() - start) / calls)
    return statistics.median(results)


@dataclass(frozen=True)
class Measurement:
    n: int
    seconds: float
    gflops: float
    cpu: str
    blas: str
    measured_at: str
    threads: str = "1"


def measured_dgemm(n: int, *, directory: Path | None = None, refresh: bool = False) -> tuple[Measurement, bool]:
    """DGEMM of size N timed on this machine: (measurement, came from cache)."""
    path = (directory or cache_dir()) / CACHE_FILE
    key = machine_key(n)
    entries = _load_cache(path)
    if not refresh and key in entries:
        try:
            return Measurement(**entries[key]), True
        except TypeError:
            pass
    seconds = time_dgemm(n)
    m = Measurement(
        n=n,
        seconds=seconds,
        gflops=gemm_flops(n) / seconds / 1e9,
        cpu=cpu_model(),
        blas=blas_info(),
        threads=gemm_threads(),
        measured_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    )
    entries = _load_cache(path)  # re-read: another process may have added entries
    entries[key] = asdict(m)
    _save_cache(path, entries)
    return m, False


def gemm_time(
    n: int, *, gflops: float | None = None, rate: ComputeRate | None = None, directory: Path | None = None
) -> ComputeTime:
    """The length of a `gemm:N` phase: at `gflops` (the user's) if given, else
    at the system's `rate` if given, else DGEMM timed on this machine (see the
    module docstring)."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise CloudnoiseError(f"gemm: N must be a positive integer, got {n!r}")
    if gflops is not None:
        if not gflops > 0:
            raise CloudnoiseError(f"gflops must be positive, got {gflops!r}")
        return ComputeTime(
            gemm_flops(n) / (gflops * 1e9), "gflops", f"2*{n}^3 flop at {gflops:g} GFLOP/s (given)", gflops, "given"
        )
    if rate is not None:
        return ComputeTime(
            gemm_flops(n) / (rate.gflops * 1e9),
            "profile",
            f"2*{n}^3 flop at {rate.gflops:g} GFLOP/s ({rate.kind}: {rate.source})",
            rate.gflops,
            rate.kind,
        )
    timed_n = min(n, MAX_TIMED_N)
    m, cached = measured_dgemm(timed_n, directory=directory)
    origin = "cached" if cached else "timed"
    if timed_n == n:
        return ComputeTime(
            m.seconds, "measured", f"DGEMM {n} {origin} on this machine: {m.gflops:.1f} GFLOP/s", m.gflops, "this machine"
        )
    scale = (n / timed_n) ** 3
    return ComputeTime(
        m.seconds * scale,
        "measured-scaled",
        f"DGEMM {timed_n} {origin} on this machine ({m.gflops:.1f} GFLOP/s) scaled by ({n}/{timed_n})^3",
        m.gflops,
        "this machine",
    )
