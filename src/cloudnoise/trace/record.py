"""`cloudnoise trace record`: run an MPI application under the recorder.

The recorder (src/probes/cn_trace.c) is compiled with the user's mpicc
(cached like the probes) as a shared library and loaded into every rank
with LD_PRELOAD; it writes DIR/rank-NNNNNN.cntr. Where LD_PRELOAD does not
reach the ranks (static binaries, some batch systems), link the object
`cloudnoise trace lib --static` prints into the application and record
with --no-preload. The launcher line is the user's own (`mpiexec -n 4 ./app`):
cloudnoise runs it as given, with CN_TRACE_DIR (and LD_PRELOAD) added to
the environment. MPICH's and Intel's mpiexec pass the environment to the
ranks; with Open MPI add `-x LD_PRELOAD -x CN_TRACE_DIR` to the line.

A polling loop (MPI_Test* or MPI_Iprobe until something arrives) is
recorded as one record per run of unsuccessful calls (CN_POLL), not one per
call: the conversion is the same, the disk rate stays bounded.
CN_TRACE_POLLING=every (`every_poll`) records every call.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cloudnoise.errors import EXIT_RUNTIME, CloudnoiseError
from cloudnoise.measurement.mpi import MpiInstallation, find_mpi
from cloudnoise.measurement.probes import build_library

RECORDER = "cn_trace"


def recorder_library(mpi: MpiInstallation, static: bool = False) -> Path:
    """The recorder compiled for this MPI: a shared library, or an object file to link."""
    return build_library(RECORDER, mpi, "object" if static else "shared")


@dataclass
class Recording:
    """What `record` did: where the trace is, the command, its outcome."""

    out: Path
    command: list[str]
    returncode: int
    seconds: float
    ranks: int
    library: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "out": str(self.out),
            "command": self.command,
            "returncode": self.returncode,
            "wall_seconds": round(self.seconds, 6),
            "ranks": self.ranks,
            "library": self.library,
        }


def record(command: list[str], out: Path, *, mpicc: str | None = None, preload: bool = True,
           timeout: float | None = None, quiet: bool = False, every_poll: bool = False) -> Recording:
    """Runs `command` (the launcher line) with the recorder; the trace goes to `out`.
    `every_poll` records each unsuccessful MPI_Test*/MPI_Iprobe call as its own record
    instead of one record per polling run (the same conversion, far more bytes)."""
    if not command:
        raise CloudnoiseError("give the command to record after --, e.g. -- mpiexec -n 4 ./app")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise CloudnoiseError(f"--out {out}: exists and is not a folder")
    if out.is_dir() and any(out.glob("rank-*.cntr")):
        raise CloudnoiseError(f"--out {out}: already holds a trace; choose an empty or new folder (nothing was run)")
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env["CN_TRACE_DIR"] = str(out.resolve())
    env["CN_TRACE_POLLING"] = "every" if every_poll else "folded"
    library = None
    if preload:
        mpi = find_mpi(mpicc)
        library = str(recorder_library(mpi))
        env["LD_PRELOAD"] = library + (" " + env["LD_PRELOAD"] if env.get("LD_PRELOAD") else "")
    started = time.time()
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            command, env=env, timeout=timeout, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL if quiet else None, stderr=subprocess.PIPE if quiet else None,
        )
    except FileNotFoundError:
        raise CloudnoiseError(f"cannot run {command[0]!r}: no such program; check the command after --", EXIT_RUNTIME) from None
    except subprocess.TimeoutExpired:
        raise CloudnoiseError(f"the application ran past --timeout {timeout:g} s and was stopped; what was written is in {out}", EXIT_RUNTIME) from None
    seconds = time.perf_counter() - t0
    ranks = len(list(out.glob("rank-*.cntr")))
    meta = {
        "format": "cloudnoise-trace/1",
        "command": command,
        "command_line": shlex.join(command),
        "started_unix_s": started,
        "wall_seconds": seconds,
        "returncode": proc.returncode,
        "ranks_written": ranks,
        "recorder": library or "linked into the application (--no-preload)",
    }
    tmp = out / ".trace.json.tmp"
    tmp.write_text(json.dumps(meta, indent=2) + "\n")
    os.replace(tmp, out / "trace.json")
    if proc.returncode != 0:
        detail = ""
        if quiet and proc.stderr:
            lines = [ln for ln in proc.stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
            detail = f" ({lines[-1].strip()})" if lines else ""
        raise CloudnoiseError(
            f"the application exited with status {proc.returncode}{detail}; what the ranks wrote is in {out}",
            EXIT_RUNTIME,
        )
    if ranks == 0:
        raise CloudnoiseError(
            "the application ran but no rank wrote a trace: the recorder was not loaded into the ranks "
            "(with Open MPI add -x LD_PRELOAD -x CN_TRACE_DIR; for static binaries link the object from "
            "`cloudnoise trace lib --static` and pass --no-preload)",
            EXIT_RUNTIME,
        )
    return Recording(out, command, proc.returncode, seconds, ranks, library)
