"""`cloudnoise measure import netgauge`: a Netgauge run (the paper's artifact) as a campaign.

A run folder (or its ``.tar.xz``, read as a stream) becomes an ordinary
campaign, experiment by experiment:

| Netgauge file                                   | experiment              |
|-------------------------------------------------|-------------------------|
| ``ng_netnoise_mpi_lat.out``                     | ``latency-noise``       |
| ``ng_netnoise_mpi_bw.out``                      | ``bandwidth-noise``     |
| ``ng_one_one_mpi_stripe1.out``                  | ``latency``, and ``connections`` with one pair |
| ``ng_one_one_mpi_concN.out`` (N >= 2)           | ``connections``, N pairs |
| ``ng_one_one_mpi_bidirect_mpi_stripe1.out``, ``..._concN.out`` | ``bidirectional`` |
| ``ng_one_one_mpi_stripeN.out`` (N >= 2)         | ``striping-N`` (one message striped over N connections) |
| ``ng_one_one_mpi_bidirect_mpi_stripeN.out``     | ``bidirectional-striping-N`` |
| ``ng_osnoise.out``                              | ``os-noise``            |
| ``ng_loggp.out``                                | ``loggp`` (fitted: measurement.loggp_netgauge) |
| ``gemm_N.dat``                                  | the campaign's ``compute`` rate |
| ``hoverboard_reps_R.out``, ``wtime_res.out``, ``*.cmdout`` | ``import`` in metadata.json |

``conc1`` files (one connection, what ``stripe1`` also measures) and the
raw-transport runs (``ng_one_one_{ib,ibv,tcp,udp}.out``) are listed under
``import.not_imported`` with the reason. How samples are read (warm-up,
reconstructed times) is said in ``netgauge_pingpong`` and ``netgauge_osnoise``.

Everything is written into a temporary folder beside ``--out`` and renamed
into place at the end: damaged input (one line naming file and line, exit 2)
leaves nothing behind, and an existing ``--out`` is never touched.
"""

from __future__ import annotations

import gc
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from cloudnoise.version import __version__
from cloudnoise.errors import CloudnoiseError
from cloudnoise.output_files import current_umask
from cloudnoise.measurement import loggp_netgauge
from cloudnoise.measurement.campaign import Campaign, utc_now
from cloudnoise.measurement.experiments import Run, Unit
from cloudnoise.measurement.imports import netgauge_extras, netgauge_loggp_table, netgauge_osnoise, netgauge_pingpong
from cloudnoise.measurement.imports.netgauge_source import Member, members, run_name
from cloudnoise.measurement.imports.probe_files import ChunkWriter, write_info, write_records
from cloudnoise.measurement.runner import finalize
from cloudnoise.measurement.samples import KIND_DETOUR, KIND_RTT, RECORD
from cloudnoise.measurement.stream import Launch, Stream, release_memory

MONOTONIC_BASE_NS = 10**9  # the imported probes' clock at the run's start (0 means "not recorded")
_CONC = re.compile(r"^ng_one_one_mpi_(bidirect_mpi_)?(conc|stripe)(\d+)\.out$")
_GEMM = re.compile(r"^gemm_(\d+)\.dat$")
_HOVER = re.compile(r"^hoverboard_reps_(\d+)\.out$")
_RAW_TRANSPORT = re.compile(r"^ng_one_one_(ib|ibv|tcp|udp)\.out$")
FILES = {"ng_netnoise_mpi_lat.out", "ng_netnoise_mpi_bw.out", "ng_osnoise.out", "ng_loggp.out", "wtime_res.out"}


@dataclass
class ImportResult:
    """What the import wrote: the campaign, its experiments and samples, and the provenance."""

    campaign: Path
    experiments: dict[str, int]  # experiment -> samples kept
    provenance: dict[str, Any] = field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"campaign": str(self.campaign), "experiments": dict(self.experiments), "import": self.provenance}


class _Importer:
    def __init__(self, source: Path, root: Path, labels: dict[str, str], salvage: bool = False) -> None:
        self.source = source
        self.salvaged: list[str] | None = [] if salvage else None
        self.campaign = Campaign(root)
        self.run = run_name(source)
        self.wall_ns, self.time_note = _start_time(self.run)
        self.runs: dict[str, list[Run]] = {}
        self.samples: dict[str, int] = {}
        self.files: dict[str, Any] = {}
        self.not_imported: dict[str, str] = {}
        self.commands: dict[str, Any] = {}
        self.gemm: dict[int, list[dict[str, float]]] = {}
        self.extras: dict[str, Any] = {}
        self.hosts: set[str] = set()
        self.os_facts: dict[str, str] = {}
        self.labels = {"distance": "unknown", **labels, "source": "netgauge", "netgauge_run": self.run}

    # --- one launch per file ----------------------------------------------------------------

    def _launch(self, experiment: str, run: Run) -> tuple[int, Path]:
        runs = self.runs.setdefault(experiment, [])
        runs.append(run)
        index = len(runs) - 1
        return index, self.campaign.prefix(experiment, index, 0)

    def _info(self, prefix: Path, extra: dict[str, object] | None = None) -> None:
        write_info(prefix, 0, {"clock_wall_ns": self.wall_ns + MONOTONIC_BASE_NS,
                               "clock_monotonic_ns": MONOTONIC_BASE_NS,
                               **({"host": "unknown"} if not extra or "host" not in extra else {}),
                               **(extra or {})})

    def pingpongs(self, member: Member, targets: list[tuple[str, int, str, bool]]) -> None:
        """A ping-pong file into one run of each target (experiment, pairs, mode, split)."""
        writers = []
        placed = []
        for experiment, pairs, mode, split in targets:
            run = Run("cn_pingpong", mode, 2 * pairs, [Unit(0, 0, 0)], split=split,
                      warmup=netgauge_pingpong.WARMUP_DROPPED,
                      extra={"imported_from": member.name, "netgauge_run_length": netgauge_pingpong.RUN_LENGTH})
            index, prefix = self._launch(experiment, run)
            writers.append(ChunkWriter(prefix))
            placed.append((experiment, index, prefix, run))
        totals = netgauge_pingpong.PingPongTotals()
        for batch in netgauge_pingpong.read(member.stream, member.where, totals, self.salvaged):
            for w in writers:
                w.add(KIND_RTT, batch.size, MONOTONIC_BASE_NS + batch.start_ns, batch.rtt_ns, batch.seq)
        for experiment, index, prefix, run in placed:
            run.units = [Unit(s, 0, int(0)) for s in totals.sizes]
            run.duration_s = totals.span_ns / 1e9
            run.extra["netgauge_runs"] = totals.runs
            self._info(prefix, {"begin_monotonic_ns": MONOTONIC_BASE_NS,
                                "end_monotonic_ns": MONOTONIC_BASE_NS + totals.span_ns, "complete": 1})
            self._convert(experiment, index, prefix, run)
        self.files[member.name] = {"experiments": [e for e, *_ in placed], "samples": totals.samples,
                                   "kept": totals.kept, "netgauge_runs": totals.runs, "headers": totals.headers,
                                   "sizes_bytes": list(totals.sizes),
                                   "dropped_per_run": netgauge_pingpong.WARMUP_DROPPED}

    def osnoise(self, member: Member) -> None:
        run = Run("cn_detour", "detour", 1, [Unit(0, 0, 0)], extra={"imported_from": member.name})
        index, prefix = self._launch("os-noise", run)
        writer = ChunkWriter(prefix)
        calls: list[netgauge_osnoise.NoiseRun] = []
        seq = 0
        for batch in netgauge_osnoise.read(member.stream, member.where, calls):
            n = len(batch.start_ns)
            writer.add(KIND_DETOUR, np.zeros(n, np.int64), MONOTONIC_BASE_NS + batch.start_ns, batch.duration_ns,
                       np.arange(seq, seq + n, dtype=np.int64))
            seq += n
        span = int(round(sum(c.span_ns for c in calls)))
        first = calls[0]
        host = first.facts.get("Nodename", "unknown")
        self.hosts.add(host)
        self.os_facts = {k: v for k, v in first.facts.items() if k in ("Sysname", "Release", "Version", "Machine")}
        t_min = first.t_min_ns if np.isfinite(first.t_min_ns) else 0.0
        factor = first.threshold_percent / 100.0 if np.isfinite(first.threshold_percent) else 9.0
        run.duration_s = span / 1e9
        run.detours = seq
        self._info(prefix, {"host": host, "t_min_ns": int(round(t_min)), "threshold_ns": int(round(t_min * factor)),
                            "threshold_factor": int(round(factor)), "begin_monotonic_ns": MONOTONIC_BASE_NS,
                            "end_monotonic_ns": MONOTONIC_BASE_NS + span, "detours": seq, "complete": 1})
        self._convert("os-noise", index, prefix, run)
        self.files[member.name] = {"experiments": ["os-noise"], "detours": seq, "netgauge_runs": len(calls),
                                   "span_s": span / 1e9, "runs": [c.to_json() for c in calls]}

    def loggp(self, member: Member) -> None:
        table = netgauge_loggp_table.read(member.stream, member.where)
        run = Run("cn_loggp", "loggp", 2, [Unit(int(s), 0, 1) for s in table.sizes], warmup=0,
                  extra={"train": table.n, "rounds": 1, "imported_from": member.name,
                         "netgauge_table": {k: [float(x) if np.isfinite(x) else None for x in v]
                                            for k, v in table.columns.items()},
                         "netgauge_parameters": table.netgauge_parameters()})
        index, prefix = self._launch("loggp", run)
        write_records(prefix, 0, table.records())
        self._info(prefix, {"round0_end_monotonic_ns": MONOTONIC_BASE_NS})
        self.files[member.name] = {"experiments": ["loggp"], "rows": int(len(table.sizes)),
                                   "netgauge_parameters": table.netgauge_parameters()}

    def _large_messages(self) -> None:
        """Add to the loggp records, as ping-pongs, the median round trips of the run's
        ping-pong sweep above the LogGP table's largest size (measurement.loggp_netgauge)."""
        if "loggp" not in self.runs or "latency" not in self.runs:
            return
        run = self.runs["loggp"][0]
        top = max(u.size for u in run.units)
        extra = sorted((size, stats.percentile(50.0)) for _, size, _, stats in
                       Stream(self.campaign, "latency").pingpong_groups() if size > top and stats.count)
        if not extra:
            return
        rec = np.zeros(len(extra), RECORD)
        rec["kind"], rec["size_bytes"] = KIND_RTT, [s for s, _ in extra]
        rec["value_ns"] = np.rint([v for _, v in extra]).astype(np.int64)
        rec["t_ns"] = 10**6 + np.arange(len(extra))
        with open(self.campaign.prefix("loggp", 0, 0).parent / "run00-part00.rank0.bin", "ab") as f:
            f.write(rec.tobytes())
        run.units += [Unit(int(s), 0, 1) for s, _ in extra]
        run.extra["large_messages"] = (f"ping-pong medians of {self.runs['latency'][0].extra['imported_from']} "
                                       f"above {top} B, {len(extra)} sizes")

    def _convert(self, experiment: str, index: int, prefix: Path, run: Run) -> None:
        stream = Stream(self.campaign, experiment)
        stream.poll(Launch(index, 0, prefix, run), finished=True)
        self.samples[experiment] = stream.rows

    # --- the run ----------------------------------------------------------------------------

    def member(self, m: Member) -> None:
        """Import one file; with salvage, a file that holds nothing usable is left out
        (its launch undone) and noted, instead of refusing the run."""
        before = {k: len(v) for k, v in self.runs.items()}
        try:
            self._member(m)
        except CloudnoiseError as err:
            if self.salvaged is None:
                raise
            for experiment, runs in self.runs.items():
                for index in range(before.get(experiment, 0), len(runs)):
                    raw = self.campaign.prefix(experiment, index, 0)
                    for f in raw.parent.glob(raw.name + ".*"):
                        f.unlink()
                del runs[before.get(experiment, 0):]
            for experiment in [k for k, v in self.runs.items() if not v]:
                del self.runs[experiment]
                shutil.rmtree(self.campaign.exp_dir(experiment), ignore_errors=True)
            self.not_imported[m.name] = f"damaged, left out (--salvage): {err}"
            self.salvaged.append(f"{m.where}: left out ({str(err).split(': ', 1)[-1]})")

    def _member(self, m: Member) -> None:
        name = m.name
        conc = _CONC.match(name)
        if name == "ng_netnoise_mpi_lat.out":
            self.pingpongs(m, [("latency-noise", 1, "pingpong", False)])
        elif name == "ng_netnoise_mpi_bw.out":
            self.pingpongs(m, [("bandwidth-noise", 1, "pingpong", False)])
        elif conc:
            bidir, how, n = bool(conc.group(1)), conc.group(2), int(conc.group(3))
            mode = "bidir" if bidir else "pingpong"
            if how == "stripe" and n == 1:
                first = ("bidirectional", 1, mode, False) if bidir else ("latency", 1, mode, False)
                self.pingpongs(m, [first] + ([] if bidir else [("connections", 1, mode, True)]))
            elif how == "stripe":
                self.pingpongs(m, [(f"{'bidirectional-' if bidir else ''}striping-{n}", 1, mode, False)])
            elif n == 1:
                self.not_imported[name] = "one connection: the same measurement as the stripe1 file, imported from there"
            else:
                self.pingpongs(m, [("bidirectional" if bidir else "connections", n, mode, True)])
        elif name == "ng_osnoise.out":
            self.osnoise(m)
        elif name == "ng_loggp.out":
            self.loggp(m)
        elif _GEMM.match(name) or _HOVER.match(name):
            self._auxiliary(m)
        elif name == "wtime_res.out":
            self.extras["mpi_wtime_resolution_ns"] = netgauge_extras.read_wtime(m.stream, m.where)
        elif name.endswith(".cmdout"):
            self.commands[name] = netgauge_extras.read_cmdout(m.stream, m.where)
        elif _RAW_TRANSPORT.match(name):
            self.not_imported[name] = "a run over a raw transport (not MPI): not read by this importer"
        else:
            self.not_imported[name] = "not a Netgauge output this importer reads"

    def _auxiliary(self, m: Member) -> None:
        """A DGEMM or hoverboard file: side results, not samples. One that does not hold its
        table (in the artifact, a DGEMM run that failed left mpiexec's usage text) is listed
        as not imported, with the reason, instead of refusing the whole run."""
        gemm = _GEMM.match(m.name)
        try:
            if gemm:
                self.gemm[int(gemm.group(1))] = netgauge_extras.read_gemm(m.stream, m.where)
            else:
                self.extras.setdefault("hoverboard", {})[m.name] = netgauge_extras.read_hoverboard(m.stream, m.where)
        except CloudnoiseError as err:
            self.not_imported[m.name] = f"not its table ({str(err).split(': ', 1)[-1]})"

    def finish(self) -> dict[str, Any]:
        if not self.runs:
            raise CloudnoiseError(f"{self.source}: no Netgauge output found (ng_netnoise_mpi_lat.out, ng_osnoise.out, "
                                  "ng_loggp.out, ...); give a run folder of the paper's artifact or its .tar.xz")
        meta = self.campaign.meta
        versions = sorted({v for c in self.commands.values() for v in c["versions"]})
        provenance: dict[str, Any] = {
            "tool": "netgauge",
            "versions": versions,
            "source": str(self.source.resolve()),
            "tarball": self.source.is_file(),
            "run": self.run,
            "start_time": self.time_note,
            "imported_by": f"cloudnoise {__version__}",
            "imported_at": utc_now(),
            "warmup": (f"the first {netgauge_pingpong.WARMUP_DROPPED} of every {netgauge_pingpong.RUN_LENGTH} "
                       "samples dropped, counted over the whole file (the authors' index % 1000 > 20)"),
            "files": self.files,
            "commands": self.commands,
            "not_imported": self.not_imported,
            **({"salvaged": self.salvaged} if self.salvaged is not None else {}),
            **self.extras,
        }
        compute = _compute(self.gemm)
        if compute:
            meta["compute"] = compute
        elif self.gemm:
            provenance["gemm"] = "the gemm_N.dat files hold no rows: no DGEMM rate"
        meta.update({
            "launch_host": None,
            "cpu_model": None,
            "os": " ".join(self.os_facts[k] for k in ("Sysname", "Release") if k in self.os_facts) or None,
            "labels": self.labels,
            "mpi": {"library": f"Netgauge {versions[0] if versions else '?'} over MPI (library not recorded)"},
            "import": provenance,
        })
        self._large_messages()
        exps = meta.setdefault("experiments", {})
        for name, runs in self.runs.items():
            exps[name] = {"plan": [r.as_dict() for r in runs], "launches": [], "start_time": self.time_note,
                          "end_time": None, "complete": True, "imported_from": sorted(
                              {str(r.extra.get("imported_from")) for r in runs})}
        self.campaign.save()
        for name, runs in self.runs.items():
            summary = finalize(self.campaign, name, runs, loggp_fit=_netgauge_fit(runs) if name == "loggp" else None)
            self.samples[name] = int(summary.get("samples", 0))
            _release()
        # Netgauge records no host of its ping-pongs (the scripts put one rank on each of two
        # nodes); the OS-noise node alone would read as "one host, shared memory" downstream
        meta["hosts"] = []
        provenance["hosts"] = {"os-noise": sorted(self.hosts),
                               "ping-pongs": "not recorded by Netgauge (the paper's scripts map one rank per node)"}
        self.campaign.save()
        return provenance


def _netgauge_fit(runs: list[Run]) -> Callable[[dict[str, np.ndarray]], dict[str, Any]]:
    """The estimator for an imported LogGP table (measurement.loggp_netgauge)."""
    run = runs[0]
    return lambda data: loggp_netgauge.fit(data, int(run.extra["train"]), dict(run.extra["netgauge_parameters"]))


def _start_time(run: str) -> tuple[int, str]:
    """The run's start (ns since the epoch) from its name, YYYY_MM_DD_HH_MM_SS, read as UTC."""
    try:
        when = datetime.strptime(run, "%Y_%m_%d_%H_%M_%S").replace(tzinfo=timezone.utc)
    except ValueError:
        return 0, f"unknown (the run's name {run!r} is not YYYY_MM_DD_HH_MM_SS): times start at the epoch"
    return int(when.timestamp()) * 10**9, f"{when.isoformat()} (the run's name, its time zone not recorded: read as UTC)"


def _compute(gemm: dict[int, list[dict[str, float]]]) -> dict[str, Any] | None:
    """The DGEMM rate of the largest N with rows (their median), as model build reads it."""
    sizes = [n for n, rows in gemm.items() if rows]
    if not sizes:
        return None
    n = max(sizes)
    rates = [r["gflops"] for r in gemm[n]]
    return {"gflops": float(np.median(rates)), "dgemm_n": n, "samples": len(rates),
            "source": f"gemm_{n}.dat of the Netgauge run: the authors' DGEMM benchmark on {n}x{n} matrices "
                      f"(median of {len(rates)} rows), as it ran on the node: not timed by cloudnoise"}


def import_netgauge(source: str | os.PathLike[str], out: str | os.PathLike[str],
                    labels: dict[str, str] | None = None, salvage: bool = False) -> ImportResult:
    """Import one Netgauge run folder or ``.tar.xz`` into a new campaign folder ``out``.
    ``salvage``: import what is whole instead of refusing damaged input: a file cut short
    is read as the authors' scripts read it (every whole line), a file that holds nothing
    usable is left out; each is listed under ``import.salvaged``. Off by default: damaged
    input is an error."""
    source, out = Path(source), Path(out)
    if out.exists() or out.is_symlink():
        raise CloudnoiseError(f"--out {out}: already exists; an import writes a new campaign folder, choose another")
    if not source.exists():
        raise CloudnoiseError(f"{source}: no such Netgauge run folder or .tar.xz")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.import-", dir=out.parent))
    # what exists now (the interpreter, numpy, pyarrow, scipy) outlives the import: the
    # collections after each file (_release) then scan only what the import made
    gc.freeze()
    try:
        importer = _Importer(source, tmp, dict(labels or {}), salvage)
        for m in members(source, _is_output):
            launches = sum(len(r) for r in importer.runs.values())
            importer.member(m)
            if sum(len(r) for r in importer.runs.values()) != launches:
                _release()  # after a file of samples only: a full collection costs tens of ms
        provenance = importer.finish()
        os.chmod(tmp, 0o777 & ~current_umask())
        os.rename(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        gc.unfreeze()
    return ImportResult(out, dict(importer.samples), provenance)


def _release() -> None:
    """Free what one file's conversion left (its histograms sit in reference cycles) before the next."""
    gc.collect()
    release_memory()


def _is_output(name: str) -> bool:
    """Names Netgauge and the paper's scripts write as files."""
    return name in FILES or name.endswith((".out", ".dat", ".cmdout"))
