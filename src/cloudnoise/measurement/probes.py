"""Compile the C probes with the user's MPI on first use, and cache them.

The probe sources ship inside the package (CMake installs ``src/probes`` as
``cloudnoise/probes``); from a source tree they are read from ``src/probes``.
A binary is cached under ``$CLOUDNOISE_CACHE_DIR`` or
``$XDG_CACHE_HOME/cloudnoise/probes`` (default ``~/.cache/cloudnoise/probes``),
named by a hash of the probe sources and of the MPI wrapper's identity (its
path, the compile line it expands to, and its version), so a new MPI or a new
cloudnoise version rebuilds and nothing stale is ever run.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from importlib import resources
from pathlib import Path

from cloudnoise.errors import EXIT_RUNTIME, CloudnoiseError
from cloudnoise.measurement.mpi import MpiInstallation, cache_dir, run_quiet

PROBES = ("cn_pingpong", "cn_detour", "cn_goal_exec", "cn_loggp")
CFLAGS = ["-std=c99", "-O2", "-Wall", "-Wextra"]


def source_dir() -> Path:
    """Where the probe sources are: package data first, then the source tree."""
    try:
        packaged = resources.files("cloudnoise") / "probes"
        if packaged.is_dir() and (packaged / "cn_pingpong.c").is_file():
            return Path(str(packaged))
    except (ModuleNotFoundError, TypeError):
        pass
    tree = Path(__file__).resolve().parents[2] / "probes"
    if (tree / "cn_pingpong.c").is_file():
        return tree
    raise CloudnoiseError(
        "the probe sources (cn_pingpong.c) are missing from the installation; reinstall cloudnoise",
        EXIT_RUNTIME,
    )


def _identity(mpi: MpiInstallation) -> str:
    show = run_quiet([str(mpi.mpicc), "-show"]) or run_quiet([str(mpi.mpicc), "--showme"])
    return "\n".join([str(mpi.mpicc.resolve()), show, mpi.version])


def build_probe(name: str, mpi: MpiInstallation) -> Path:
    """The compiled probe ``name`` (one of PROBES), compiling it if needed. Any
    other name is refused before a path is made of it: only the probes that ship
    with cloudnoise are ever compiled or run."""
    if name not in PROBES:
        raise CloudnoiseError(f"{name!r} is not one of cloudnoise's probes ({', '.join(PROBES)})")
    return _build(name, mpi, "")


# Libraries built from the probe sources: name -> (what, extra flags, suffix).
LIBRARY_KINDS = {
    "shared": (["-fPIC", "-shared"], ".so"),
    "object": (["-fPIC", "-c"], ".o"),
}


def build_library(name: str, mpi: MpiInstallation, kind: str = "shared") -> Path:
    """The probe source ``name``.c compiled as a library: "shared" (for
    LD_PRELOAD) or "object" (to link into an application), cached like the
    probes."""
    if kind not in LIBRARY_KINDS:
        raise ValueError(f"unknown library kind {kind!r}")
    return _build(name, mpi, kind)


def _build(name: str, mpi: MpiInstallation, kind: str) -> Path:
    src = source_dir()
    flags, suffix = LIBRARY_KINDS[kind] if kind else ([], "")
    digest = hashlib.sha256()
    for path in sorted(src.glob("*.[ch]")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update(_identity(mpi).encode())
    digest.update(" ".join(CFLAGS + flags).encode())
    target = cache_dir() / f"{name}-{digest.hexdigest()[:16]}{suffix}"
    if target.is_file() and (kind or os.access(target, os.X_OK)):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}-", suffix=suffix, dir=target.parent)
    os.close(fd)
    cmd = [str(mpi.mpicc), *CFLAGS, *flags, "-I", str(src), "-o", tmp, str(src / f"{name}.c")]
    try:
        out = subprocess.run(
            cmd, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.SubprocessError) as err:
        os.unlink(tmp)
        raise CloudnoiseError(f"cannot run {mpi.mpicc}: {err}; check --mpicc", EXIT_RUNTIME) from err
    if out.returncode != 0:
        os.unlink(tmp)
        lines = [ln for ln in (out.stderr + out.stdout).splitlines() if ln.strip()]
        first = next((ln for ln in lines if "error" in ln.lower()), lines[0] if lines else "")
        raise CloudnoiseError(
            f"{mpi.mpicc} could not compile the {name} probe: {first.strip()}", EXIT_RUNTIME
        )
    os.chmod(tmp, 0o755 if not kind else 0o644)
    os.replace(tmp, target)
    return target
