"""Start probe programs on ranks, watch them, and stop them cleanly.

A launcher is ``mpiexec`` (the default, with flags for the MPI flavour),
``srun``, or a user template such as ``'mpirun -np {ranks} {cmd}'`` whose
fields are ``{ranks}``, ``{ppn}``, ``{hosts}``, ``{hostfile}`` and ``{cmd}``.

:func:`supervise` runs the launch in its own process group with its output
in a log file, calls back about twice a second (for progress bars), and never
hangs: a launch that writes no sample for ``stall_s`` seconds, or outlives
``timeout_s``, is killed and reported in one line. Ctrl-C / SIGTERM kill the
launch's process group and propagate as :class:`KeyboardInterrupt`, so the
caller keeps what was measured. Only the group this process started is ever
signalled. On Linux the launcher is asked to get SIGTERM when this process
dies (``PR_SET_PDEATHSIG``), so even ``kill -9`` of cloudnoise stops the
launch; the probes watch for that too (``src/probes/cn_parent.h``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import shlex
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cloudnoise.errors import EXIT_RUNTIME, CloudnoiseError
from cloudnoise.measurement.mpi import MpiInstallation


@dataclass
class LaunchSpec:
    """How the user wants ranks placed: launcher, hosts, processes per node."""

    launcher: str = "mpiexec"
    hosts: list[str] = field(default_factory=list)
    hostfile: str | None = None
    ppn: int | None = None

    def as_dict(self) -> dict[str, object]:
        return {
            "launcher": self.launcher,
            "hosts": self.hosts,
            "hostfile": self.hostfile,
            "ppn": self.ppn,
        }


def _mpiexec_args(
    mpi: MpiInstallation, spec: LaunchSpec, ranks: int, ppn: int | None, bind_core: bool = False
) -> list[str]:
    if mpi.mpiexec is None:
        raise CloudnoiseError(
            f"no mpiexec next to {mpi.mpicc}; pass --mpiexec PATH or --launcher", EXIT_RUNTIME
        )
    args = [str(mpi.mpiexec)]
    if mpi.flavor == "openmpi":
        if os.geteuid() == 0:
            args.append("--allow-run-as-root")
        args += ["-n", str(ranks)]
        if ppn:
            args += ["--map-by", f"ppr:{ppn}:node"]
        if spec.hosts:
            slots = ppn or ranks
            args += ["--host", ",".join(f"{h}:{slots}" for h in spec.hosts)]
        elif spec.hostfile:
            args += ["--hostfile", spec.hostfile]
        elif ranks > (os.cpu_count() or 1):
            args.append("--oversubscribe")
        if bind_core:
            args += ["--bind-to", "core"]
    else:  # MPICH, Intel MPI and other Hydra-style launchers
        args += ["-n", str(ranks)]
        if ppn:
            args += ["-ppn", str(ppn)]
        if spec.hosts:
            args += ["-hosts", ",".join(spec.hosts)]
        elif spec.hostfile:
            args += ["-f", spec.hostfile]
        if bind_core:
            args += ["-bind-to", "core"]
    return args


def build_command(
    mpi: MpiInstallation,
    spec: LaunchSpec,
    ranks: int,
    program: Sequence[str],
    ppn: int | None = None,
    bind_core: bool = False,
) -> list[str]:
    """The full argv that starts ``program`` on ``ranks`` ranks (each bound
    to a core when ``bind_core``: one OS-noise probe per core)."""
    ppn = ppn or spec.ppn
    if spec.launcher == "mpiexec":
        return _mpiexec_args(mpi, spec, ranks, ppn, bind_core) + list(program)
    if spec.launcher == "srun":
        args = ["srun", "-n", str(ranks)] + (["--cpu-bind=cores"] if bind_core else [])
        if ppn:
            args += [f"--ntasks-per-node={ppn}"]
        if spec.hosts:
            args += ["-w", ",".join(spec.hosts)]
        return args + list(program)
    if "{cmd}" not in spec.launcher:
        raise CloudnoiseError(
            "--launcher must be mpiexec, srun, or a template containing {cmd} "
            "(e.g. 'mpirun -np {ranks} {cmd}')"
        )
    try:
        text = spec.launcher.format(
            ranks=ranks,
            ppn=ppn or "",
            hosts=",".join(spec.hosts),
            hostfile=spec.hostfile or "",
            cmd=shlex.join(program),
        )
    except (KeyError, IndexError, ValueError) as err:
        raise CloudnoiseError(
            f"--launcher template has an unknown field {err}; use {{ranks}} {{ppn}} "
            "{hosts} {hostfile} {cmd}"
        ) from err
    return shlex.split(text)


def launch_env() -> dict[str, str]:
    """The environment for launches: Open MPI refuses root without these."""
    env = dict(os.environ)
    if os.geteuid() == 0:
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env


PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the launcher's child, before exec: SIGTERM when cloudnoise dies (Linux)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the probes' own watch still stops them


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Stop the launch and every rank it started (its own process group)."""
    for sig, wait in ((signal.SIGINT, 2.0), (signal.SIGTERM, 2.0), (signal.SIGKILL, 5.0)):
        if proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _last_error_line(log: Path) -> str:
    try:
        lines = [ln.strip() for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    for line in reversed(lines):
        if "cloudnoise probe:" in line:
            return line.split("cloudnoise probe:", 1)[1].strip()
    return lines[-1] if lines else ""


def supervise(
    cmd: list[str],
    log: Path,
    progress: Callable[[], int],
    on_start: Callable[[int], None] | None = None,
    stall_s: float = 120.0,
    timeout_s: float | None = None,
) -> None:
    """Run ``cmd`` to completion; ``progress()`` returns a count that grows
    while samples are written (used for stall detection and progress bars).
    Raises CloudnoiseError (one line) when the launch fails or hangs."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as out:
        out.write(("$ " + shlex.join(cmd) + "\n").encode())
        out.flush()
        try:
            proc = subprocess.Popen(
                cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True, env=launch_env(),
                preexec_fn=_die_with_parent if os.uname().sysname == "Linux" else None,
            )
        except OSError as err:
            raise CloudnoiseError(
                f"cannot start the launcher {cmd[0]!r}: {err.strerror}; check --launcher/--mpiexec",
                EXIT_RUNTIME,
            ) from err
    if on_start:
        on_start(proc.pid)
    start = last_change = time.monotonic()
    last_count = -1
    try:
        while True:
            try:
                rc = proc.wait(timeout=0.25)
                break
            except subprocess.TimeoutExpired:
                pass
            now = time.monotonic()
            count = progress()
            if count != last_count:
                last_count, last_change = count, now
            if timeout_s is not None and now - start > timeout_s:
                _kill_group(proc)
                raise CloudnoiseError(
                    f"the launch ran past its {timeout_s:.0f} s limit and was stopped; "
                    f"see {log} (raise --timeout?)",
                    EXIT_RUNTIME,
                )
            if now - last_change > stall_s:
                _kill_group(proc)
                raise CloudnoiseError(
                    f"the probes wrote no sample for {stall_s:.0f} s and were stopped "
                    f"(hung launch?); see {log}",
                    EXIT_RUNTIME,
                )
    except BaseException:
        _kill_group(proc)
        raise
    progress()
    if rc != 0:
        why = _last_error_line(log)
        raise CloudnoiseError(
            f"the launch failed (exit {rc}): {why or 'no output'}; full log: {log}", EXIT_RUNTIME
        )
