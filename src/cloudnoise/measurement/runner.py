"""Carry out an experiment's plan into a campaign, resumably, in bounded memory and disk.

For each run of the plan the runner works out what is still missing (from
the experiment's streaming state: samples per size, seconds measured,
detours seen), launches the probe for just that as a new part, and keeps the
metadata current. While a probe runs, its finished chunk files are turned
into Parquet and streaming summaries (``cloudnoise.measurement.stream``), so a
run of any length holds one chunk in memory and a few on disk. Ctrl-C,
SIGTERM, a failed or hung launch, a disk running full: the samples already
on disk are converted, the experiment is marked incomplete, and ``--resume``
later continues with the missing part only.
"""

from __future__ import annotations

import json
import dataclasses
import os
import signal
import socket
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from cloudnoise.console import Progress
from cloudnoise.errors import EXIT_RUNTIME, CloudnoiseError
from cloudnoise.measurement import diskspace, loggp, machine_load, osnoise, rows, tables
from cloudnoise.measurement.campaign import Campaign, utc_now, write_json
from cloudnoise.measurement.dgemm import record_dgemm
from cloudnoise.measurement.experiments import Options, Run, Unit, plan
from cloudnoise.measurement.launcher import LaunchSpec, build_command, supervise
from cloudnoise.measurement.locks import CampaignLock, wait_for_probes
from cloudnoise.measurement.mpi import MpiInstallation
from cloudnoise.measurement.probes import build_probe
from cloudnoise.measurement.samples import KIND_RTT, count_records, read_info, read_records
from cloudnoise.measurement.stream import Launch, Stream, is_streamed, recording_ranks
from cloudnoise.measurement.summaries import RELATIVE_PRECISION

MIN_REMAINING_S = 1.0  # a duration run this close to its end counts as done
CHUNK_SAMPLES = 1 << 20  # samples per chunk set (all recording ranks together)
MIN_CHUNK_SAMPLES = 4096
CHUNK_SECONDS = 60.0  # a slow run still starts a new chunk (and converts) this often


@dataclass
class Request:
    """Everything `cloudnoise measure <experiment>` was asked to do."""

    experiment: str
    options: Options
    launch: LaunchSpec
    out: Path
    labels: dict[str, str]
    resume: bool = False
    timeout_s: float | None = None
    stall_s: float = 120.0
    slice_s: float | None = None
    min_free: int = diskspace.DEFAULT_MIN_FREE
    quiet: bool = False  # no progress bar (--quiet, --json)
    announce_mpi: bool = True  # say which MPI measures (a caller that said it already passes False)


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """`kill` stops a measurement like Ctrl-C does: samples are kept."""

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def remaining(campaign: Campaign, name: str, index: int, run: Run, stream: Stream | None = None) -> Run | None:
    """What is left of ``run``: a Run of the missing work, or None when done."""
    parts = campaign.parts(name, index)
    if not parts:
        return run
    if is_streamed(run):
        stream = stream or Stream(campaign, name)
        return _remaining_streamed(campaign, name, run, parts, stream)
    rank0 = [read_records(p.parent / f"{p.name}.rank0.bin") for p in parts]
    if run.mode == "loggp":
        infos = [read_info(p.parent / f"{p.name}.rank0.info") for p in parts]
        done = loggp_rounds_done(infos)
        rounds = int(run.extra.get("rounds", 1))
        return None if done >= rounds else Run(**{**run.__dict__, "extra": {**run.extra, "first_round": done}})
    allrec = np.concatenate(rank0)
    rtt = allrec[(allrec["kind"] == KIND_RTT) & (allrec["stream"] == 0)]
    units = []
    for u in run.units:
        got = int(np.count_nonzero((rtt["size_bytes"] == u.size) & (rtt["param"] == u.interval_ns)))
        if got < u.iterations:
            units.append(Unit(u.size, u.interval_ns, u.iterations - got))
    return Run(**{**run.__dict__, "units": units}) if units else None


def _remaining_streamed(campaign: Campaign, name: str, run: Run, parts: list[Path], stream: Stream) -> Run | None:
    first = recording_ranks(run)[0] if recording_ranks(run) else 0
    rank0 = [stream.launch_ranks(p.name).get(first, {}) for p in parts]
    if run.mode == "detour":
        infos = [read_info(p.parent / f"{p.name}.rank0.info") for p in parts]
        if any(i.get("complete") == "1" for i in infos):
            return None
        spent = sum(osnoise.part_span_ns(i, r.get("last_end_ns", 0)) for i, r in zip(infos, rank0)) / 1e9
        seen = sum(int(r.get("n", 0)) for r in rank0)
        left_s = run.duration_s - spent if run.duration_s > 0 else 0.0
        left_n = run.detours - seen if run.detours > 0 else 0
        if (run.duration_s > 0 and left_s < MIN_REMAINING_S) or (run.detours > 0 and left_n <= 0):
            return None
        return Run(**{**run.__dict__, "duration_s": max(left_s, 0.0), "detours": max(left_n, 0)})
    if run.duration_s > 0:
        spent = sum((r["last_end_ns"] - r["first_t_ns"]) / 1e9 for r in rank0 if r.get("n"))
        left = run.duration_s - spent
        if left < MIN_REMAINING_S:
            return None
        return Run(**{**run.__dict__, "duration_s": left})
    units = []
    for u in run.units:
        got = sum(int(r.get("counts", {}).get(f"{u.size}:{u.interval_ns}", 0)) for r in rank0)
        if got < u.iterations:
            units.append(Unit(u.size, u.interval_ns, u.iterations - got))
    return Run(**{**run.__dict__, "units": units}) if units else None


def chunk_samples(run: Run) -> int:
    """Samples per chunk and rank: a chunk set of all recording ranks holds about CHUNK_SAMPLES."""
    return max(MIN_CHUNK_SAMPLES, CHUNK_SAMPLES // max(1, len(recording_ranks(run))))


def probe_argv(binary: Path, run: Run, prefix: Path, watch: str | None = None) -> list[str]:
    """The probe's command line for one launch; ``watch`` is HOST:PID of this cloudnoise."""
    streamed = ["--chunk-samples", str(chunk_samples(run)), "--chunk-seconds", repr(CHUNK_SECONDS)]
    if watch:
        streamed += ["--watch", watch]
    if run.probe == "cn_loggp":
        return loggp_argv(binary, run, prefix) + (["--watch", watch] if watch else [])
    if run.mode == "detour":
        argv = [str(binary), "--out", str(prefix), "--detours", str(run.detours),
                "--duration", repr(float(run.duration_s)), *streamed]
        if run.inject:
            argv += ["--inject-period-us", repr(run.inject[0]), "--inject-duration-us", repr(run.inject[1])]
        return argv
    join = lambda xs: ",".join(str(int(x)) for x in xs)  # noqa: E731
    argv = [str(binary), "--mode", run.mode, "--out", str(prefix),
            "--sizes", join(u.size for u in run.units),
            "--intervals", join(u.interval_ns for u in run.units),
            "--iterations", join(u.iterations for u in run.units),
            "--warmup", str(run.warmup)]
    if run.duration_s > 0:
        argv += ["--duration", repr(float(run.duration_s))]
    if run.split:
        argv.append("--split")
    argv += streamed
    return argv


def loggp_argv(binary: Path, run: Run, prefix: Path) -> list[str]:
    """The cn_loggp probe's command line: the plan's rounds, from the first
    one not yet measured."""
    join = lambda xs: ",".join(str(int(x)) for x in xs)  # noqa: E731
    return [str(binary), "--out", str(prefix),
            "--sizes", join(u.size for u in run.units),
            "--iterations", join(u.iterations for u in run.units),
            "--warmup", str(run.warmup),
            "--train", str(int(run.extra.get("train", 8))),
            "--rounds", str(int(run.extra.get("rounds", 1))),
            "--first-round", str(int(run.extra.get("first_round", 0)))]


def loggp_rounds_done(infos: list[dict[str, str]]) -> int:
    """Rounds of a loggp run completed by its parts (each part's rank 0 notes
    the end of every round it finished)."""
    done = -1
    for info in infos:
        for key in info:
            if key.startswith("round") and key.endswith("_end_monotonic_ns"):
                done = max(done, int(key[len("round"):-len("_end_monotonic_ns")]))
    return done + 1


def resolve_auto(campaign: Campaign, name: str, runs: list[Run], index: int, stream: Stream) -> None:
    """Fill in the size / connections a sweep was to pick (bandwidth-noise):
    the number of connections with the highest peak bandwidth, and the
    smallest size reaching 95 % of that peak."""
    run = runs[index]
    if run.units[0].size and run.ranks:
        return
    sweeps = [i for i, r in enumerate(runs) if r.role == "sweep"]
    found = rows.pingpong_rows(stream.pingpong_groups(), runs, "bandwidth-noise", roles=("sweep",))
    if not found:
        raise CloudnoiseError("the bandwidth sweep measured nothing; see the logs in the campaign", EXIT_RUNTIME)
    best = max(found, key=lambda r: r["bandwidth_gbps"])
    pairs = best.get("connections", runs[sweeps[0]].pairs) if run.ranks == 0 else run.pairs
    mine = [r for r in found if r.get("connections", pairs) == pairs]
    peak = max(r["bandwidth_gbps"] for r in mine)
    size = run.units[0].size or min(r["size_bytes"] for r in mine if r["bandwidth_gbps"] >= 0.95 * peak)
    run.units[0].size = int(size)
    run.ranks = 2 * int(pairs)
    if run.extra.get("ppn_per_pair"):
        run.ppn = int(pairs)


def _mib(n: float) -> str:
    return f"{n / (1 << 20):.1f} MiB" if n < (1 << 30) else f"{n / (1 << 30):.2f} GiB"


def _expected_samples(run: Run) -> int:
    if run.mode == "loggp":
        # rank 0's records: a ping-pong and an isend per iteration, an exchange, a
        # quarter of them as trains, delayed trains and sends to completion
        rounds = int(run.extra.get("rounds", 1)) - int(run.extra.get("first_round", 0))
        per = [max(3, -(-u.iterations // int(run.extra.get("rounds", 1)))) for u in run.units]
        return rounds * sum(3 * k + 3 * max(3, k // 4) for k in per)
    return sum(u.iterations for u in run.units)


def _drain(campaign: Campaign, name: str, runs: list[Run], stream: Stream) -> None:
    """Convert every chunk left by earlier launches (a killed run leaves some)."""
    for index, run in enumerate(runs):
        if not is_streamed(run):
            continue
        for part, prefix in enumerate(campaign.parts(name, index)):
            stream.poll(Launch(index, part, prefix, run), finished=True)


def execute(req: Request, mpi: MpiInstallation) -> tuple[Campaign, dict[str, Any]]:
    """Measure ``req.experiment`` into ``req.out``; returns the campaign and the
    experiment's summary (see :func:`finalize`)."""
    campaign = Campaign(req.out)
    name = req.experiment
    exp = campaign.experiment(name)
    if exp is not None and not req.resume:
        raise CloudnoiseError(
            f"{req.out} already holds a {name} measurement; pass --resume to continue it "
            "or choose another --out"
        )
    if exp is None and req.resume and not campaign.meta_path.exists():
        raise CloudnoiseError(f"nothing to resume: {req.out} is not a campaign")
    diskspace.check_before(req.out, req.min_free)
    with CampaignLock(req.out):
        return _execute_locked(req, mpi, campaign, exp)


def _execute_locked(req: Request, mpi: MpiInstallation, campaign: Campaign,
                    exp: dict[str, Any] | None) -> tuple[Campaign, dict[str, Any]]:
    name = req.experiment
    if exp is None:
        runs = plan(name, req.options, os.cpu_count() or 1)
        exp = {
            "plan": [r.as_dict() for r in runs],
            "launch": req.launch.as_dict(),
            "launches": [],
            "start_time": utc_now(),
            "end_time": None,
            "complete": False,
        }
        if req.slice_s:
            exp["slice_s"] = req.slice_s
        campaign.meta.setdefault("experiments", {})[name] = exp
    else:
        runs = [Run.from_dict(r) for r in exp.get("plan") or []]
        if not runs:
            raise CloudnoiseError(f"{campaign.meta_path}: the {name} experiment has no plan; measure into a new --out")
        wait_for_probes(campaign.exp_dir(name) / "raw")
    campaign.meta["labels"] = {"distance": "unknown", **campaign.meta.get("labels", {}), **req.labels}
    campaign.meta["mpi"] = {**campaign.meta.get("mpi", {}), **mpi.as_dict()}
    # the machine's load at the experiment's start (and end, below): model build flags a busy one
    exp.setdefault("load", []).append(machine_load.snapshot("start"))
    record_dgemm(campaign)
    campaign.root.mkdir(parents=True, exist_ok=True)
    campaign.save()
    stream = Stream(campaign, name, slice_s=exp.get("slice_s"))
    _drain(campaign, name, runs, stream)

    binaries = {probe: build_probe(probe, mpi) for probe in {r.probe for r in runs}}
    if req.announce_mpi and not req.quiet:  # the request is checked and its probes built: measuring starts
        print(f"cloudnoise: {mpi.summary()}", file=sys.stderr)
    watch = f"{socket.gethostname()}:{os.getpid()}"
    interrupted: BaseException | None = None
    try:
        with _sigterm_as_interrupt(), Progress(name, quiet=req.quiet) as bar:
            timed_s = sum(r.duration_s for r in runs if r.role != "skip" and r.duration_s > 0)
            if timed_s and exp.get("launches") == []:
                bar.estimate(timed_s, "the runs' --duration")
            for index, run in enumerate(runs):
                if run.role == "skip":
                    continue
                if not run.units[0].size and run.mode != "detour" or not run.ranks:
                    resolve_auto(campaign, name, runs, index, stream)
                    exp["plan"] = [r.as_dict() for r in runs]
                todo = remaining(campaign, name, index, run, stream)
                if todo is None:
                    continue
                part = len(campaign.parts(name, index))
                prefix = campaign.prefix(name, index, part)
                prefix.parent.mkdir(parents=True, exist_ok=True)
                # a run of one pair of hosts (latency-noise --hosts a,b,c,d) is launched on that pair
                pair = todo.extra.get("hosts")
                launch_spec = dataclasses.replace(req.launch, hosts=[str(h) for h in pair]) if pair else req.launch
                cmd = build_command(mpi, launch_spec, todo.ranks,
                                    probe_argv(binaries[todo.probe], todo, prefix, watch), ppn=todo.ppn,
                                    bind_core=bool(todo.extra.get("bind_core")))
                launch = {"run": index, "part": part, "command": cmd, "start": utc_now(), "end": None}
                exp["launches"].append(launch)
                desc = f"{name} run {index + 1}/{len(runs)}"
                timed = todo.duration_s > 0
                total = todo.duration_s if timed else max(1, _expected_samples(todo))
                bar.phase(desc)
                streamed = is_streamed(todo)
                current = Launch(index, part, prefix, todo)
                first_bin = prefix.parent / f"{prefix.name}.rank0.bin"
                started = [0.0]
                converted = [0]

                def progress() -> int:
                    if streamed:
                        converted[0] += stream.poll(current, finished=False)
                        n = converted[0] + stream.pending_samples(current)
                    else:
                        n = count_records(first_bin)
                    if not started[0]:
                        started[0] = time.monotonic()
                    elapsed = max(1e-9, time.monotonic() - started[0])
                    disk = stream.parquet_bytes + (stream.raw_bytes(current) if streamed else 0)
                    done = min(total, elapsed) if timed else min(total, n)
                    bar.update(done, total, f"{n:,} samples, {n / elapsed:,.0f}/s, {_mib(disk)} on disk")
                    diskspace.check_during(req.out, req.min_free)
                    return n

                stall = max(req.stall_s, todo.duration_s + req.stall_s) if timed else req.stall_s
                try:
                    supervise(cmd, campaign.exp_dir(name) / "logs" / f"{prefix.name}.log",
                              progress, stall_s=stall, timeout_s=req.timeout_s)
                finally:
                    launch["end"] = utc_now()
                    campaign.save()
                if streamed:
                    stream.poll(current, finished=True)
                for lock in prefix.parent.glob(f"{prefix.name}.rank*.lock"):
                    lock.unlink(missing_ok=True)  # the launch has ended: its probes released them
    except (KeyboardInterrupt, CloudnoiseError) as err:
        interrupted = err
    _drain(campaign, name, runs, stream)
    summary = finalize(campaign, name, runs, stream)
    exp["complete"] = interrupted is None and all(
        remaining(campaign, name, i, r, stream) is None for i, r in enumerate(runs) if r.role != "skip")
    exp["end_time"] = utc_now()
    exp.setdefault("load", []).append(machine_load.snapshot("end"))
    campaign.save()
    if interrupted is not None:
        kept = summary.get("samples", 0)
        note = f"kept {kept} samples in {req.out} (incomplete); continue with the same command and --resume"
        if isinstance(interrupted, CloudnoiseError):
            if kept:
                raise CloudnoiseError(f"{interrupted}; {note}", interrupted.exit_code) from interrupted
        elif kept:
            print(f"cloudnoise: {note}", file=sys.stderr)
        raise interrupted
    return campaign, summary


def _update_campaign_facts(campaign: Campaign, name: str) -> None:
    """Hosts, MPI library and timer, as the probe ranks reported them."""
    hosts: set[str] = set()
    timer: dict[str, Any] = {}
    library = None
    for info_path in sorted((campaign.exp_dir(name) / "raw").glob("*.rank*.info")):
        info = read_info(info_path)
        hosts.add(info.get("host", "unknown"))
        library = library or info.get("mpi_library")
        if not timer and "timer" in info:
            timer = {
                "name": info["timer"],
                "resolution_ns": float(info.get("timer_resolution_ns", 0)),
                "clock_getres_ns": float(info.get("timer_getres_ns", 0)),
                "overhead_ns": float(info.get("timer_overhead_ns", 0)),
            }
    campaign.meta["hosts"] = sorted(hosts | set(campaign.meta.get("hosts", [])))
    exp = campaign.experiment(name)
    if exp is not None and name == "latency-noise":
        exp["pairs"] = _pairs_measured(campaign, name)
    if library:
        campaign.meta.setdefault("mpi", {})["library"] = library
    if timer:
        campaign.meta["timer"] = timer


def _pairs_measured(campaign: Campaign, name: str) -> list[dict[str, Any]]:
    """Per run of a ping-pong experiment, the hosts its two ranks reported (rank 0 times the
    series): what a profile built from it can vouch for (model/vouching.py)."""
    runs: dict[int, dict[int, str]] = {}
    for info_path in sorted((campaign.exp_dir(name) / "raw").glob("run*-part*.rank*.info")):
        try:
            run = int(info_path.name[3:5])
            rank = int(info_path.name.split(".rank")[1].split(".")[0])
        except ValueError:
            continue
        runs.setdefault(run, {})[rank] = str(read_info(info_path).get("host", "unknown"))
    return [{"run": run, "hosts": [ranks.get(0, "unknown"), ranks.get(1, "unknown")]}
            for run, ranks in sorted(runs.items())]


def finalize(campaign: Campaign, name: str, runs: list[Run], stream: Stream | None = None,
             loggp_fit: Callable[[dict[str, np.ndarray]], dict[str, Any]] | None = None) -> dict[str, Any]:
    """Compute the experiment's summary from its streaming state (ping-pong and
    detour runs) or its raw records (loggp, written to samples.parquet); returns it
    (also written to <experiment>/summary.json). ``loggp_fit``: the estimator for
    loggp records that are not the cn_loggp probe's (an imported table)."""
    _update_campaign_facts(campaign, name)
    exp_dir = campaign.exp_dir(name)
    summary: dict[str, Any] = {"experiment": name, "campaign": str(campaign.root)}
    if not (exp_dir / "raw").exists():
        summary.update(results=[], samples=0)
        return summary
    if any(is_streamed(r) for r in runs):
        stream = stream or Stream(campaign, name)
        _drain(campaign, name, runs, stream)
        summary["samples"] = stream.rows
        summary["parquet_bytes"] = stream.parquet_bytes
        summary["precision"] = {"relative": RELATIVE_PRECISION,
                                "percentiles": "HDR histogram, nearest rank, at most this much above the exact one"}
        if name == "os-noise":
            traces = osnoise.write_traces(campaign, name, stream, campaign.meta.get("labels", {}))
            summary["results"] = osnoise.summary_rows(campaign, name, stream)
            if traces:
                summary["trace"] = str(exp_dir / "os_noise.trace")
        else:
            groups = stream.pingpong_groups()
            summary["results"] = rows.pingpong_rows(groups, runs, name)
            summary["table2"] = rows.table2(groups, runs, name)
            if stream.slice_s:
                summary["slices"] = rows.slice_rows(stream.slice_groups(), runs, stream.slice_s, stream.origins)
    else:
        data = tables.collect(campaign, name, runs)
        tables.write_parquet(data, exp_dir / "samples.parquet", name)
        summary["samples"] = int(len(data["value_ns"]))
        if loggp_fit is not None:
            fit = loggp_fit(data)
        else:
            fit = loggp.fit(data, train=next((r.extra.get("train") for r in runs if r.mode == "loggp"), None),
                            read_ns=_timer_read_ns(campaign, name))
        summary["loggp"] = fit
        summary["results"] = fit.get("per_size", [])
    write_json(exp_dir / "summary.json", summary)
    _write_campaign_summary(campaign, name, summary)
    return summary


def _timer_read_ns(campaign: Campaign, name: str) -> float:
    """The cost of one clock read as this experiment's probe ranks measured it
    (the median over their info files; 0 where none says)."""
    costs = [float(read_info(p).get("timer_overhead_ns", "nan"))
             for p in sorted((campaign.exp_dir(name) / "raw").glob("*.rank*.info"))]
    costs = [c for c in costs if np.isfinite(c) and c >= 0]
    return float(np.median(costs)) if costs else 0.0


def _write_campaign_summary(campaign: Campaign, name: str, summary: dict[str, Any]) -> None:
    """CAMPAIGN/summary.json: Table II over all experiments measured so far.
    Latency comes from latency-noise when there is one (the paper's source),
    else from latency; bandwidth from bandwidth-noise, else bandwidth."""
    path = campaign.root / "summary.json"
    try:
        whole = json.loads(path.read_text())
    except (OSError, ValueError):
        whole = {}
    per = whole.setdefault("experiments", {})
    per[name] = summary.get("table2") or ({"loggp": summary["loggp"]} if "loggp" in summary else {})
    row: dict[str, Any] = {}
    for source in ("latency", "bidirectional", "connections", "latency-noise"):
        t = per.get(source) or {}
        if "min_latency_us" in t:
            row.update({k: t[k] for k in ("min_latency_us", "mean_latency_us", "latency_normalized")})
            row["latency_from"] = source
    for source in ("latency", "connections", "bandwidth", "bandwidth-noise"):
        t = per.get(source) or {}
        if "max_bandwidth_gbps" in t:
            row.update({k: t[k] for k in ("max_bandwidth_gbps", "mean_bandwidth_gbps", "bandwidth_normalized")})
            row["bandwidth_from"] = source
    whole["table2"] = row
    whole["labels"] = campaign.meta.get("labels", {})
    write_json(path, whole)
