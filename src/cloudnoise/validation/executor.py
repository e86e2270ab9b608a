"""Run a schedule on real MPI ranks with the `cn_goal_exec` probe.

The schedule is flattened into an op table (:mod:`cloudnoise.validation.optable`),
the probe is compiled and cached like every probe (``measure.probes``),
launched with the user's launcher and supervised by ``measure.launcher``
(timeouts, stalls, a rank that dies: one-line errors, never a hang). Each
rank writes one record per measured repetition (see ``cn_goal_exec.c``);
:func:`read_measurement` turns them into per-repetition runtimes in rank 0's
clock: runtime = latest rank end - common start, the quantity the simulator
reports as its max host end time.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cloudnoise.errors import EXIT_RUNTIME, CloudnoiseError
from cloudnoise.measurement.launcher import LaunchSpec, build_command, supervise
from cloudnoise.measurement.mpi import MpiInstallation
from cloudnoise.measurement.probes import build_probe
from cloudnoise.measurement.samples import (
    KIND_CORE_LATENCY,
    KIND_GOAL_REP,
    KIND_PINGPONG_REF,
    count_records,
    read_info,
    read_records,
    rank_files,
)
from cloudnoise.validation.optable import OpTable

PROBE = "cn_goal_exec"
CRASH_ENV = "CLOUDNOISE_INJECT_CRASH"


@dataclass
class ExecRequest:
    """One configuration to run: the table, how often, where, and limits."""

    table: OpTable
    reps: int
    warmup: int
    workdir: Path  # receives optable.txt, raw/, logs/
    launch: LaunchSpec = field(default_factory=LaunchSpec)
    timeout_s: float | None = None
    stall_s: float = 60.0
    resync: int = 100
    yield_cpu: bool = False  # oversubscribed cores: ranks yield while they wait
    # > 0: a block's repetitions start this many us apart from one broadcast start, with no
    # collective between them (cn_goal_exec --period-us; bench/bench_first_exchange.py)
    period_us: float | None = None
    # > 0: paced repetitions: each block's period is the 90th percentile of the previous block's
    # runtimes plus this gap (cn_goal_exec --gap-us), so the ranks wait about the gap, not a
    # start margin of ~60 us, before each repetition; the warm-up repetitions set the first pace
    gap_us: float | None = None


@dataclass
class Measurement:
    """Every rank x repetition of one configuration (times in ns, rank 0's clock)."""

    ranks: int
    reps: int
    rank: np.ndarray  # per record
    rep: np.ndarray
    host: list[str]
    start_ns: np.ndarray  # the common start of the repetition
    start_delay_ns: np.ndarray  # how late this rank actually started
    end_ns: np.ndarray  # this rank's last completion after the common start
    runtime_ns: np.ndarray  # per repetition: max end over ranks
    command: list[str]
    info: dict[str, Any]
    # the core-to-core probe before every block of repetitions and after the
    # last (ns, one way; measurement/core_latency.py): the machine state the run saw
    core_latency_ns: np.ndarray = field(default_factory=lambda: np.zeros(0))
    # beside it, the median one-way time of 64 polled 1 B ping-pongs between ranks 0 and 1
    pingpong_ref_ns: np.ndarray = field(default_factory=lambda: np.zeros(0))
    # paced runs: the period each block after the first ran at (ns)
    period_ns: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def late_reps(self, threshold_ns: float = 1000.0) -> int:
        """Repetitions in which some rank started more than threshold late."""
        late = np.zeros(self.reps, dtype=bool)
        late[self.rep[self.start_delay_ns > threshold_ns]] = True
        return int(late.sum())


def run(req: ExecRequest, mpi: MpiInstallation, crash_rank: int | None = None) -> Measurement:
    """Execute the table on its ranks; raises CloudnoiseError (one line) on failure."""
    binary = build_probe(PROBE, mpi)
    req.workdir.mkdir(parents=True, exist_ok=True)
    table_path = req.workdir / "optable.txt"
    req.table.write(table_path)
    raw = req.workdir / "raw"
    raw.mkdir(exist_ok=True)
    for old in raw.glob("exec.rank*"):
        old.unlink()
    prefix = raw / "exec"
    argv = [str(binary), "--table", str(table_path), "--out", str(prefix), "--reps", str(req.reps),
            "--warmup", str(req.warmup), "--resync", str(req.resync)]
    if req.yield_cpu:
        argv.append("--yield")
    if req.period_us:
        argv += ["--period-us", repr(float(req.period_us))]
    if req.gap_us:
        argv += ["--gap-us", repr(float(req.gap_us))]
    # Ranks that have a core each are bound to it: busy-polling ranks that
    # the scheduler stacks on one core take turns in time slices.
    cmd = build_command(mpi, req.launch, req.table.ranks, argv, bind_core=not req.yield_cpu)
    log = req.workdir / "logs" / "launch.log"
    if log.exists():
        log.unlink()
    first = raw / "exec.rank0.bin"
    # The launcher passes this process's environment to the ranks; the crash
    # hook (tests only) is set for the launch and restored after it.
    old_env = os.environ.get(CRASH_ENV)
    if crash_rank is not None:
        os.environ[CRASH_ENV] = str(crash_rank)
    try:
        supervise(cmd, log, lambda: count_records(first), stall_s=req.stall_s, timeout_s=req.timeout_s)
    except CloudnoiseError as err:
        raise CloudnoiseError(_explain_failure(str(err), log, req.table.ranks), err.exit_code) from None
    finally:
        if crash_rank is not None:
            if old_env is None:
                os.environ.pop(CRASH_ENV, None)
            else:
                os.environ[CRASH_ENV] = old_env
    return read_measurement(prefix, req.table.ranks, req.reps, cmd)


_SIGNAL = re.compile(r"KILLED BY SIGNAL:\s*(\d+)\s*\(([^)]*)\)")
_EXIT = re.compile(r"EXIT CODE:\s*(\d+)")
_EXIT_STRING = re.compile(r"EXIT STRING:\s*(.+?\(signal \d+\))")
# Open MPI's mpiexec: "process rank 1 with PID 0 on node vm exited on signal 6 (Aborted)."
_OPEN_MPI_SIGNAL = re.compile(r"process rank (\d+) with PID \d+ on node \S+ exited on signal (\d+) \(([^)]*)\)")


def _explain_failure(message: str, log: Path, ranks: int) -> str:
    """Say which way the ranks failed (a rank died, an MPI abort, a hang)."""
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return message
    probe = [ln.split("cloudnoise probe:", 1)[1].strip() for ln in text.splitlines() if "cloudnoise probe:" in ln]
    if probe:
        return f"the GOAL executor on {ranks} ranks failed: {probe[-1]}; full log: {log}"
    died = _EXIT_STRING.search(text)
    if died:
        return (f"a rank of the GOAL executor died ({died.group(1).strip()}) and the run on {ranks} ranks "
                f"was stopped; full log: {log}")
    ompi = _OPEN_MPI_SIGNAL.search(text)
    if ompi:
        return (f"rank {ompi.group(1)} of the GOAL executor died (signal {ompi.group(2)}, {ompi.group(3).strip()}) "
                f"and the run on {ranks} ranks was stopped; full log: {log}")
    sig = _SIGNAL.search(text)
    if sig:
        return (f"a rank of the GOAL executor died (signal {sig.group(1)}, {sig.group(2).strip()}) "
                f"and the run on {ranks} ranks was stopped; full log: {log}")
    if "ran past" in message or "wrote no sample" in message:
        return (f"the GOAL executor on {ranks} ranks stopped making progress ({message.split(';')[0]}); "
                "a message the schedule waits for never arrived?")
    code = _EXIT.search(text)
    if code and code.group(1) != "0":
        return f"a rank of the GOAL executor exited with code {code.group(1)}; full log: {log}"
    return message


def repetition_runtimes(reps: int, rep: np.ndarray, end_ns: np.ndarray, start_delay_ns: np.ndarray,
                        read_ns: float) -> np.ndarray:
    """Per repetition: the latest end minus the earliest start (each rank's
    start is the clock read that ended its wait, start_delay after the common
    start), less one clock read, which every duration between two reads holds
    (50-120 ns on a VM, as much as a small message). What the simulator
    reports as its max host end time, where all ranks start at 0."""
    latest = np.full(reps, np.iinfo(np.int64).min, dtype=np.int64)
    np.maximum.at(latest, rep, end_ns)
    earliest = np.full(reps, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(earliest, rep, start_delay_ns)
    return np.maximum(0, latest - earliest - int(round(read_ns)))


def read_measurement(prefix: Path, ranks: int, reps: int, command: list[str]) -> Measurement:
    """Collect every rank's records into per-repetition runtimes."""
    files = rank_files(prefix, "bin")
    if sorted(files) != list(range(ranks)):
        raise CloudnoiseError(
            f"the GOAL executor left results for ranks {sorted(files)} of {ranks}; see {prefix.parent}",
            EXIT_RUNTIME,
        )
    recs, hosts, rank_col = [], [], []
    core = ping = np.zeros(0)
    for r, path in files.items():
        rec = read_records(path)
        if r == 0:
            core = rec["value_ns"][rec["kind"] == KIND_CORE_LATENCY].astype(np.float64)
            ping = rec["value_ns"][rec["kind"] == KIND_PINGPONG_REF].astype(np.float64)
        rec = rec[rec["kind"] == KIND_GOAL_REP]
        if len(rec) != reps:
            raise CloudnoiseError(
                f"rank {r} of the GOAL executor recorded {len(rec)} of {reps} repetitions; see {prefix.parent}",
                EXIT_RUNTIME,
            )
        recs.append(rec)
        info = read_info(prefix.parent / f"{prefix.name}.rank{r}.info")
        hosts.extend([info.get("host", "unknown")] * len(rec))
        rank_col.append(np.full(len(rec), r, dtype=np.int32))
    allrec = np.concatenate(recs)
    rep = allrec["size_bytes"].astype(np.int64)
    end = allrec["value_ns"].astype(np.int64)
    delay = allrec["param"].astype(np.int64)
    info0 = read_info(prefix.parent / f"{prefix.name}.rank0.info")
    runtime = repetition_runtimes(reps, rep, end, delay, float(info0.get("timer_overhead_ns", 0) or 0))
    return Measurement(
        ranks=ranks,
        reps=reps,
        rank=np.concatenate(rank_col),
        rep=rep,
        host=hosts,
        start_ns=allrec["t_ns"].astype(np.int64),
        start_delay_ns=allrec["param"].astype(np.int64),
        end_ns=end,
        runtime_ns=runtime,
        command=command,
        info=info0,
        core_latency_ns=core[core > 0],
        pingpong_ref_ns=ping[ping > 0],
        period_ns=block_periods(info0),
    )


def block_periods(info: dict[str, Any]) -> np.ndarray:
    """The paced periods rank 0 wrote (``period_repN_ns``), in repetition order."""
    found = []
    for key, value in info.items():
        m = _PERIOD_KEY.fullmatch(key)
        if m:
            try:
                found.append((int(m.group(1)), float(value)))
            except (TypeError, ValueError):
                continue
    return np.array([v for _, v in sorted(found)], dtype=np.float64)


_PERIOD_KEY = re.compile(r"period_rep(\d+)_ns")
