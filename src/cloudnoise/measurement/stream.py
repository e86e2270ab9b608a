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

import ctypes
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from cloudnoise.errors import EXIT_RUNTIME, CloudnoiseError
from cloudnoise.measurement.arrow_columns import ints, strings, to_int64
from cloudnoise.measurement.campaign import Campaign, write_json
from cloudnoise.measurement.chunks import ChunkSamples, chunk_files, count_samples, read_chunk
from cloudnoise.measurement.experiments import Run
from cloudnoise.measurement.samples import KIND_NAMES, read_info
from cloudnoise.measurement.summaries import RELATIVE_PRECISION, SIGNIFICANT_FIGURES, StreamStats

FORMAT = "cloudnoise-stream/1"
STATE = "stream.json"
PARQUET_DIR = "samples.parquet"
ROW_GROUP = 1 << 18  # rows per row group: what a reader decodes at once (about 2 MB per column)
ZSTD_LEVEL = 6


def recording_ranks(run: Run) -> list[int]:
    """The ranks that write samples: ping-pong initiators, or every rank."""
    if run.mode == "pingpong":
        return list(range(run.pairs))
    return list(range(run.ranks))


def is_streamed(run: Run) -> bool:
    """Runs whose probes write chunk files (everything but loggp)."""
    return run.mode in ("pingpong", "bidir", "detour")


def release_memory() -> None:
    """Give the chunk's freed arrays back to the system (glibc keeps freed heap memory,
    so a long run's resident size would otherwise ratchet up to its largest chunk's)."""
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass  # not glibc: nothing to do


def _joined(arrays: list[np.ndarray]) -> np.ndarray:
    """One array, without a copy when there is only one."""
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)


def _small_codes(counts: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Per-sample dictionary codes (1 or 2 bytes each) from per-run codes and run lengths."""
    dtype = np.int8 if len(codes) == 0 or codes.max() < 127 else np.int16 if codes.max() < 32767 else np.int32
    return np.repeat(codes.astype(dtype), counts)


def _coded(values: np.ndarray, counts: np.ndarray, dtype: type) -> pa.Array:
    """A column that takes `values[i]` for `counts[i]` rows, as a dictionary array."""
    uniq, codes = np.unique(np.asarray(values, np.int64), return_inverse=True)
    idx = _small_codes(np.asarray(counts), codes.reshape(-1))
    return pa.DictionaryArray.from_arrays(ints(idx), ints(uniq.astype(dtype)))


def _coded_strings(values: list[str], counts: np.ndarray) -> pa.Array:
    uniq = sorted(set(values))
    idx = _small_codes(np.asarray(counts), np.array([uniq.index(v) for v in values], np.int64))
    return pa.DictionaryArray.from_arrays(ints(idx), strings(uniq))


def _constant(n: int, value: int, dtype: type) -> pa.Array:
    return pa.DictionaryArray.from_arrays(ints(np.zeros(n, np.int8)), ints(np.array([value], dtype)))


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
        release_memory()
        return n

    def _slices(self, launch: Launch, parts: list[tuple[int, ChunkSamples, int, str]]
                ) -> Iterator[tuple[pa.Table, np.ndarray, np.ndarray]]:
        """The chunk set as tables of at most ROW_GROUP rows (rank by rank, in time order),
        each with its time (in the stored unit) and value arrays. Columns that change at
        most once per block are dictionaries with 1-byte codes; a slice costs a few MB."""
        run = launch.plan
        # Ping-pong start times to the microsecond: their delta then costs a few bits where
        # nanoseconds would repeat the RTT's own entropy (the RTT itself keeps its ns).
        # Detours keep ns: the OS-noise trace places them on the simulated timeline.
        unit, div = ("ns", 1) if run.mode == "detour" else ("us", 1000)
        kinds = [KIND_NAMES.get(i, str(i)) for i in range(max(KIND_NAMES) + 1)]
        for rank, c, off, host in parts:
            seq = c.seq
            for a in range(0, len(c), ROW_GROUP):
                z = min(len(c), a + ROW_GROUP)
                m = z - a
                blk = c.blocks[(c.blocks["first"] < z) & (c.blocks["first"] + c.blocks["count"] > a)]
                counts = np.minimum(blk["first"] + blk["count"], z) - np.maximum(blk["first"], a)
                time = c.t_ns[a:z] + off
                time //= div
                value = c.value_ns[a:z]
                columns = {
                    "run": _constant(m, launch.run, np.int32),
                    "part": _constant(m, launch.part, np.int32),
                    "rank": _constant(m, rank, np.int32),
                    "host": _coded_strings([host], np.array([m])),
                    "pairs": _constant(m, run.pairs, np.int32),
                    "kind": _coded_strings([kinds[int(x)] if 0 <= int(x) < len(kinds) else str(int(x))
                                            for x in blk["kind"]], counts),
                    "size_bytes": _coded(blk["size_bytes"], counts, np.int64),
                    ("interval_ns" if self.experiment == "burst" else "param"): _coded(blk["param"], counts, np.int64),
                    "stream": _coded(blk["stream"], counts, np.int32),
                    "iteration": ints(seq[a:z]),
                    "time": ints(time, pa.timestamp(unit, tz="UTC")),
                    "value_ns": ints(value),
                }
                yield pa.Table.from_arrays(list(columns.values()), names=list(columns)), time, value

    def _write_parquet(self, launch: Launch, k: int, parts: list[tuple[int, ChunkSamples, int, str]], n: int) -> None:
        """One Parquet file for the chunk set, written and then checked a row group at a time."""
        self.parquet_dir.mkdir(parents=True, exist_ok=True)
        final = self.parquet_dir / f"{launch.name}.c{k:06d}.r{parts[0][0]:04d}.parquet"
        tmp = self.parquet_dir / f".{final.name}.tmp"
        delta = ["iteration", "time"]
        try:
            writer: pq.ParquetWriter | None = None
            for table, _, _ in self._slices(launch, parts):
                if writer is None:
                    names = table.column_names
                    writer = pq.ParquetWriter(
                        tmp, table.schema, compression="zstd", compression_level=ZSTD_LEVEL,
                        use_dictionary=[c for c in names if c not in delta],
                        column_encoding={c: "DELTA_BINARY_PACKED" for c in delta},
                        sorting_columns=[pq.SortingColumn(names.index("rank")), pq.SortingColumn(names.index("time"))],
                        store_schema=False,  # plain typed columns for readers (pandas: no categoricals)
                    )
                writer.write_table(table, row_group_size=ROW_GROUP)
            if writer is not None:
                writer.close()
            self._verify(tmp, launch, parts, n)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        os.replace(tmp, final)
        self.parquet_bytes += final.stat().st_size

    def _verify(self, path: Path, launch: Launch, parts: list[tuple[int, ChunkSamples, int, str]], n: int) -> None:
        """Read the file back, row group by row group: the raw chunk is deleted only
        when every sample's time and value came back as written."""
        f = pq.ParquetFile(path)
        if f.metadata.num_rows != n:
            raise CloudnoiseError(f"{path}: wrote {f.metadata.num_rows} rows of {n}", EXIT_RUNTIME)
        i = 0
        for i, (_, time, value) in enumerate(self._slices(launch, parts)):
            rg = f.read_row_group(i, columns=["time", "value_ns"])
            back = to_int64(rg.column("time"))
            if launch.plan.mode != "detour":
                back //= 1000  # stored in us, read as ns
            if not (np.array_equal(back, time) and np.array_equal(to_int64(rg.column("value_ns")), value)):
                raise CloudnoiseError(f"{path}: read back differs from the samples written", EXIT_RUNTIME)
        if f.num_row_groups != (i + 1 if n else 0):
            raise CloudnoiseError(f"{path}: {f.num_row_groups} row groups where {i + 1} were written", EXIT_RUNTIME)

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
            r["last_end_ns"] = max(r["last_end_ns"], int((c.t_ns[-1:] + c.value_ns[-1:]).max()),
                                   int(c.t_ns.max()))
            for b in c.blocks:
                key = _key(b["size_bytes"], b["param"])
                r["counts"][key] = r["counts"].get(key, 0) + int(b["count"])
            if run.mode == "detour":
                self._detours(launch, rank, c, r)
        if run.mode == "detour":
            return
        if run.pairs > 1:
            size, param, value, wall = self._slowest_pairs(run, parts)
            groups = [(int(sz), int(pm), value[(size == sz) & (param == pm)], wall[(size == sz) & (param == pm)])
                      for sz, pm in {(int(a), int(b)) for a, b in zip(size, param)}]
        else:
            # one sample per iteration already: the blocks say which samples share a size and param
            by: dict[tuple[int, int], list[tuple[ChunkSamples, int, int, int]]] = {}
            for _, c, off, _ in parts:
                for b in c.blocks:
                    by.setdefault((int(b["size_bytes"]), int(b["param"])), []).append(
                        (c, int(b["first"]), int(b["first"] + b["count"]), off))
            groups = []
            for (sz, pm), spans in by.items():
                value = _joined([c.value_ns[a:z] for c, a, z, _ in spans])
                wall = _joined([c.t_ns[a:z] + off for c, a, z, off in spans]) if self.slice_s else None
                groups.append((sz, pm, value, wall))
        first_wall = min(int(c.t_ns[0]) + off for _, c, off, _ in parts if len(c))
        origin = self.origins.setdefault(str(launch.run), first_wall)
        for sz, pm, value, wall in groups:
            self.groups.setdefault(_key(launch.run, sz, pm), StreamStats()).add(value)
            if self.slice_s and wall is not None:
                idx = (wall - origin) // int(self.slice_s * 1e9)
                for s_ in np.unique(idx):
                    self.slices.setdefault(_key(launch.run, sz, pm, s_), StreamStats()).add(value[idx == s_])

    @staticmethod
    def _slowest_pairs(run: Run, parts: list[tuple[int, ChunkSamples, int, str]]
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(size, param, RTT, wall start) per iteration: the slowest pair's RTT (per direction
        for bidirectional runs) and the earliest pair's start."""
        size = np.concatenate([c.size_bytes for _, c, _, _ in parts])
        param = np.concatenate([c.param for _, c, _, _ in parts])
        value = np.concatenate([c.value_ns for _, c, _, _ in parts])
        wall = np.concatenate([c.t_ns + off for _, c, off, _ in parts])
        seq = np.concatenate([c.seq for _, c, _, _ in parts])
        extra = [np.concatenate([c.stream % 2 for _, c, _, _ in parts])] if run.mode == "bidir" else []
        inv = group_codes(size, param, seq, *extra)
        m = int(inv.max()) + 1
        worst = np.zeros(m, np.int64)
        np.maximum.at(worst, inv, value)
        start = np.full(m, np.iinfo(np.int64).max, np.int64)
        np.minimum.at(start, inv, wall)
        first = np.unique(inv, return_index=True)[1]
        return size[first], param[first], worst, start

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
