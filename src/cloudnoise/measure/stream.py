"""Turn a running measurement's chunk files into Parquet and streaming summaries.

While a probe runs, every finished chunk set (chunk K of each recording rank
of one launch) is converted to one Parquet file in ``<experiment>/samples.parquet/``
(a directory that ``pyarrow``/``pandas`` read as one table), checked by
reading it back, added to the experiment's streaming summaries, and its raw
chunks deleted; memory and disk stay bounded by a chunk, whatever the
duration. The state (summaries, converted chunks, per-launch counts for
``--resume``) is ``<experiment>/stream.json``, rewritten atomically after each
chunk. A conversion is idempotent: a crash between writing a Parquet file and
recording it only means the chunk is converted again.

Parquet (one file per chunk set, rows sorted by rank then time; constant and
slowly changing columns dictionary/RLE encoded, ``time`` and ``iteration``
delta encoded, zstd):

    run, part, rank, host, pairs, kind, size_bytes, param (interval_ns for burst),
    stream, iteration, time (UTC, ns), value_ns

For concurrent pairs, an iteration's value in the summaries is the maximum
over the pairs (per direction for bidirectional), as in the paper; every
pair's sample is kept in Parquet.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from cloudnoise.errors import EXIT_RUNTIME, CloudnoiseError
from cloudnoise.measure.arrow_columns import ints, strings, to_int64
from cloudnoise.measure.campaign import Campaign, write_json
from cloudnoise.measure.chunks import ChunkSamples, chunk_files, count_samples, read_chunk
from cloudnoise.measure.experiments import Run
from cloudnoise.measure.samples import KIND_NAMES, read_info
from cloudnoise.measure.summaries import RELATIVE_PRECISION, SIGNIFICANT_FIGURES, StreamStats

FORMAT = "cloudnoise-stream/1"
STATE = "stream.json"
PARQUET_DIR = "samples.parquet"
ROW_GROUP = 1 << 20
ZSTD_LEVEL = 6


def recording_ranks(run: Run) -> list[int]:
    """The ranks that write samples: ping-pong initiators, or every rank."""
    if run.mode == "pingpong":
        return list(range(run.pairs))
    return list(range(run.ranks))


def is_streamed(run: Run) -> bool:
    """Runs whose probes write chunk files (everything but loggp)."""
    return run.mode in ("pingpong", "bidir", "detour")


def _key(*parts: int) -> str:
    return ":".join(str(int(p)) for p in parts)


def _unkey(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(":"))


def group_codes(*columns: np.ndarray) -> np.ndarray:
    """Dense group ids 0..k-1 of the rows' combined key (constant columns cost nothing)."""
    n = len(columns[0])
    columns = tuple(c for c in columns if n and c.min() != c.max())
    if not columns:
        return np.zeros(n, np.int64)
    code = np.zeros(len(columns[0]), np.int64)
    for col in columns:
        uniq, inv = np.unique(col, return_inverse=True)
        code = code * len(uniq) + inv.reshape(-1)
    return np.unique(code, return_inverse=True)[1].reshape(-1)


@dataclass
class Launch:
    """One probe launch (a part of a run) whose chunks are converted."""

    run: int
    part: int
    prefix: Path
    plan: Run

    @property
    def name(self) -> str:
        return self.prefix.name


class Stream:
    """The streaming conversion and summaries of one experiment."""

    def __init__(self, campaign: Campaign, experiment: str, slice_s: float | None = None) -> None:
        self.campaign = campaign
        self.experiment = experiment
        self.dir = campaign.exp_dir(experiment)
        self.parquet_dir = self.dir / PARQUET_DIR
        self.path = self.dir / STATE
        self.groups: dict[str, StreamStats] = {}
        self.slices: dict[str, StreamStats] = {}
        self.gaps: dict[str, StreamStats] = {}
        self.launches: dict[str, dict[str, Any]] = {}
        self.origins: dict[str, int] = {}
        self.slice_s = slice_s
        self.parquet_bytes = 0
        self.rows = 0
        self.convert_s = 0.0  # time spent converting (reading chunks, Parquet, checks, summaries)
        if self.path.is_file():
            self._load()

    # --- state ------------------------------------------------------------------------------

    def _load(self) -> None:
        try:
            data = json.loads(self.path.read_text())
            if data.get("format") != FORMAT:
                raise ValueError(f"unknown format {data.get('format')!r}")
            self.groups = {k: StreamStats.from_json(v) for k, v in data["groups"].items()}
            self.slices = {k: StreamStats.from_json(v) for k, v in data.get("slices", {}).items()}
            self.gaps = {k: StreamStats.from_json(v) for k, v in data.get("gaps", {}).items()}
            self.launches = dict(data["launches"])
            self.origins = {str(k): int(v) for k, v in data.get("origins", {}).items()}
            if self.slice_s is None and data.get("slice_s"):
                self.slice_s = float(data["slice_s"])
            self.parquet_bytes = int(data.get("parquet_bytes", 0))
            self.rows = int(data.get("rows", 0))
            self.convert_s = float(data.get("convert_s", 0.0))
        except (OSError, ValueError, KeyError, TypeError) as err:
            raise CloudnoiseError(f"{self.path}: damaged streaming state ({err}); measure into a new --out") from None

    def save(self) -> None:
        write_json(self.path, {
            "format": FORMAT,
            "precision": {"significant_figures": SIGNIFICANT_FIGURES, "relative": RELATIVE_PRECISION,
                          "percentile": "nearest rank; reported value in [exact, exact x (1 + relative)]"},
            "slice_s": self.slice_s,
            "rows": self.rows,
            "parquet_bytes": self.parquet_bytes,
            "convert_s": self.convert_s,
            "origins": self.origins,
            "launches": self.launches,
            "groups": {k: v.to_json() for k, v in self.groups.items()},
            "slices": {k: v.to_json() for k, v in self.slices.items()},
            "gaps": {k: v.to_json() for k, v in self.gaps.items()},
        })

    # --- what the runner asks -----------------------------------------------------------------

    def launch_state(self, launch: Launch) -> dict[str, Any]:
        return self.launches.setdefault(launch.name, {"run": launch.run, "part": launch.part, "converted": [],
                                                      "ranks": {}})

    def pending_samples(self, launch: Launch) -> int:
        """Samples written by the probes and not converted yet (from file sizes)."""
        return sum(count_samples(p) for p in chunk_files(launch.prefix).values())

    def raw_bytes(self, launch: Launch) -> int:
        total = 0
        for p in chunk_files(launch.prefix).values():
            try:
                total += p.stat().st_size
            except FileNotFoundError:
                pass
        return total

    def poll(self, launch: Launch, finished: bool) -> int:
        """Convert the chunk sets the probes have finished (all of them when the
        launch has ended: ``finished``); returns how many samples were converted."""
        files = chunk_files(launch.prefix)
        if not files:
            return 0
        state = self.launch_state(launch)
        done = set(state["converted"])  # "rank:chunk" of every chunk file already in Parquet
        by_chunk: dict[int, dict[int, Path]] = {}
        newest: dict[int, int] = {}
        for (rank, k), path in files.items():
            by_chunk.setdefault(k, {})[rank] = path
            newest[rank] = max(newest.get(rank, -1), k)
        converted = 0
        for k in sorted(by_chunk):
            ranks = by_chunk[k]
            if not finished and any(newest[r] <= k for r in ranks):
                break  # some rank may still be writing chunk k
            for r in [r for r in ranks if _key(r, k) in done]:
                ranks.pop(r).unlink(missing_ok=True)  # converted before a crash could delete it
            if ranks:
                # A rank's chunk K may appear after the others' were converted (a detour rank
                # that was quiet until then): it is converted on its own, into its own file.
                converted += self._convert(launch, k, ranks)
        return converted

    # --- conversion -----------------------------------------------------------------------------

    def _convert(self, launch: Launch, k: int, files: dict[int, Path]) -> int:
        began = time.perf_counter()
        parts: list[tuple[int, ChunkSamples, int, str]] = []
        for rank, path in sorted(files.items()):
            info = read_info(launch.prefix.parent / f"{launch.name}.rank{rank}.info")
            offset = int(info.get("clock_wall_ns", 0) or 0) - int(info.get("clock_monotonic_ns", 0) or 0)
            parts.append((rank, read_chunk(path), offset, info.get("host", "unknown")))
        n = sum(len(c) for _, c, _, _ in parts)
        state = self.launch_state(launch)
        if n:
            self._write_parquet(launch, k, parts, n)
            self._summarise(launch, parts)
        state["converted"] = sorted(set(state["converted"]) | {_key(r, k) for r in files})
        self.rows += n
        self.convert_s += time.perf_counter() - began
        self.save()
        for path in files.values():
            path.unlink(missing_ok=True)
        return n

    def _write_parquet(self, launch: Launch, k: int, parts: list[tuple[int, ChunkSamples, int, str]], n: int) -> None:
        run = launch.plan
        hosts = sorted({h for _, _, _, h in parts})
        # Ping-pong start times to the microsecond: their delta then costs a few bits where
        # nanoseconds would repeat the RTT's own entropy (the RTT itself keeps its ns).
        # Detours keep ns: the OS-noise trace places them on the simulated timeline.
        unit, div = ("ns", 1) if run.mode == "detour" else ("us", 1000)
        time = np.concatenate([(c.t_ns + off) // div for _, c, off, _ in parts])
        value = np.concatenate([c.value_ns for _, c, _, _ in parts])
        kinds = [KIND_NAMES.get(i, str(i)) for i in range(max(KIND_NAMES) + 1)]
        columns = {
            "run": ints(np.full(n, launch.run, np.int32)),
            "part": ints(np.full(n, launch.part, np.int32)),
            "rank": ints(np.concatenate([np.full(len(c), r, np.int32) for r, c, _, _ in parts])),
            "host": pa.DictionaryArray.from_arrays(
                ints(np.concatenate([np.full(len(c), hosts.index(h), np.int32) for _, c, _, h in parts])),
                strings(hosts)),
            "pairs": ints(np.full(n, run.pairs, np.int32)),
            "kind": pa.DictionaryArray.from_arrays(ints(np.concatenate([c.kind for _, c, _, _ in parts])),
                                                   strings(kinds)),
            "size_bytes": ints(np.concatenate([c.size_bytes for _, c, _, _ in parts])),
            ("interval_ns" if self.experiment == "burst" else "param"):
                ints(np.concatenate([c.param for _, c, _, _ in parts])),
            "stream": ints(np.concatenate([c.stream for _, c, _, _ in parts])),
            "iteration": ints(np.concatenate([c.seq for _, c, _, _ in parts])),
            "time": ints(time, pa.timestamp(unit, tz="UTC")),
            "value_ns": ints(value),
        }
        table = pa.Table.from_arrays(list(columns.values()), names=list(columns))
        delta = ["iteration", "time"]
        self.parquet_dir.mkdir(parents=True, exist_ok=True)
        final = self.parquet_dir / f"{launch.name}.c{k:06d}.r{parts[0][0]:04d}.parquet"
        tmp = self.parquet_dir / f".{final.name}.tmp"
        try:
            pq.write_table(
                table, tmp, row_group_size=ROW_GROUP, compression="zstd", compression_level=ZSTD_LEVEL,
                use_dictionary=[c for c in table.column_names if c not in delta],
                column_encoding={c: "DELTA_BINARY_PACKED" for c in delta},
                sorting_columns=[pq.SortingColumn(table.column_names.index("rank")),
                                 pq.SortingColumn(table.column_names.index("time"))],
            )
            del table, columns
            self._verify(tmp, time, value)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        os.replace(tmp, final)
        self.parquet_bytes += final.stat().st_size

    @staticmethod
    def _verify(path: Path, time: np.ndarray, value: np.ndarray) -> None:
        """Read the file back, row group by row group: the raw chunk is deleted only
        when every sample's time and value came back as written."""
        f = pq.ParquetFile(path)
        if f.metadata.num_rows != len(value):
            raise CloudnoiseError(f"{path}: wrote {f.metadata.num_rows} rows of {len(value)}", EXIT_RUNTIME)
        at = 0
        for i in range(f.num_row_groups):
            rg = f.read_row_group(i, columns=["time", "value_ns"])
            m = rg.num_rows
            back_time = to_int64(rg.column("time"))  # ns; the written values are in the column's unit
            unit = rg.schema.field("time").type.unit
            ok = (np.array_equal(back_time, time[at:at + m] * (1000 if unit == "us" else 1))
                  and np.array_equal(to_int64(rg.column("value_ns")), value[at:at + m]))
            if not ok:
                raise CloudnoiseError(f"{path}: read back differs from the samples written", EXIT_RUNTIME)
            at += m

    def _summarise(self, launch: Launch, parts: list[tuple[int, ChunkSamples, int, str]]) -> None:
        run = launch.plan
        state = self.launch_state(launch)
        for rank, c, _, _ in parts:
            if not len(c):
                continue
            r = state["ranks"].setdefault(str(rank), {"n": 0, "first_t_ns": int(c.t_ns[0]), "last_end_ns": 0,
                                                      "last_start_ns": None, "counts": {}})
            r["n"] += len(c)
            r["first_t_ns"] = min(r["first_t_ns"], int(c.t_ns.min()))
            r["last_end_ns"] = max(r["last_end_ns"], int((c.t_ns + c.value_ns).max()))
            codes = group_codes(c.size_bytes, c.param)
            first = np.unique(codes, return_index=True)[1]
            counts = np.bincount(codes)
            for j, idx in enumerate(first):
                key = _key(c.size_bytes[idx], c.param[idx])
                r["counts"][key] = r["counts"].get(key, 0) + int(counts[j])
            if run.mode == "detour":
                self._detours(launch, rank, c, r)
        if run.mode == "detour":
            return
        # one value per iteration: the slowest pair (per direction)
        size = np.concatenate([c.size_bytes for _, c, _, _ in parts])
        param = np.concatenate([c.param for _, c, _, _ in parts])
        value = np.concatenate([c.value_ns for _, c, _, _ in parts])
        wall = np.concatenate([c.t_ns + off for _, c, off, _ in parts])
        if run.pairs > 1:
            seq = np.concatenate([c.seq for _, c, _, _ in parts])
            extra = [np.concatenate([c.stream % 2 for _, c, _, _ in parts])] if run.mode == "bidir" else []
            inv = group_codes(size, param, seq, *extra)
            m = int(inv.max()) + 1
            worst = np.zeros(m, np.int64)
            np.maximum.at(worst, inv, value)
            start = np.full(m, np.iinfo(np.int64).max, np.int64)
            np.minimum.at(start, inv, wall)
            first = np.unique(inv, return_index=True)[1]
            size, param, value, wall = size[first], param[first], worst, start
        origin = self.origins.setdefault(str(launch.run), int(wall.min()))
        codes = group_codes(size, param)
        for g in np.unique(codes):
            sel = codes == g
            key = _key(launch.run, size[sel][0], param[sel][0])
            self.groups.setdefault(key, StreamStats()).add(value[sel])
            if self.slice_s:
                idx = (wall[sel] - origin) // int(self.slice_s * 1e9)
                for s in np.unique(idx):
                    self.slices.setdefault(_key(launch.run, size[sel][0], param[sel][0], s),
                                           StreamStats()).add(value[sel][idx == s])

    def _detours(self, launch: Launch, rank: int, c: ChunkSamples, r: dict[str, Any]) -> None:
        key = _key(launch.run, rank)
        self.groups.setdefault(key, StreamStats()).add(c.value_ns)
        starts = c.t_ns
        if r.get("last_start_ns") is not None:
            starts = np.concatenate([[int(r["last_start_ns"])], starts])
        self.gaps.setdefault(key, StreamStats()).add(np.diff(starts))
        r["last_start_ns"] = int(c.t_ns[-1])

    # --- reading back -------------------------------------------------------------------------

    def group(self, run: int, size: int, param: int) -> StreamStats | None:
        return self.groups.get(_key(run, size, param))

    def pingpong_groups(self) -> list[tuple[int, int, int, StreamStats]]:
        """(run, size_bytes, param, stats) of every ping-pong group."""
        return [(*_unkey(k), v) for k, v in sorted(self.groups.items(), key=lambda kv: _unkey(kv[0]))
                if len(_unkey(k)) == 3]  # type: ignore[misc]

    def slice_groups(self) -> list[tuple[int, int, int, int, StreamStats]]:
        return [(*_unkey(k), v) for k, v in sorted(self.slices.items(), key=lambda kv: _unkey(kv[0]))]  # type: ignore[misc]

    def detour_groups(self) -> dict[int, tuple[StreamStats, StreamStats]]:
        """rank -> (durations, gaps between detour starts), over every run."""
        out: dict[int, tuple[StreamStats, StreamStats]] = {}
        for k, v in self.groups.items():
            _, rank = _unkey(k)
            durations, gaps = out.setdefault(rank, (StreamStats(), StreamStats()))
            durations.merge(v)
            gaps.merge(self.gaps.get(k, StreamStats()))
        return out

    def launch_ranks(self, name: str) -> dict[int, dict[str, Any]]:
        return {int(r): v for r, v in (self.launches.get(name) or {}).get("ranks", {}).items()}
