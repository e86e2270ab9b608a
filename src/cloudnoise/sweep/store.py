"""A sweep's output directory: its description, finished tasks, merged results.

    DIR/sweep.json        what the sweep is (format cloudnoise-sweep/1) and
                          whether it is complete
    DIR/parts/KEY.parquet one file per finished task, written by the client
                          (temporary name, then an atomic rename), so an
                          interrupted sweep loses only unfinished tasks and a
                          task is never counted twice
    DIR/results.parquet   every repetition, one row per (system, nodes,
                          variant, rep), merged when the sweep completes

Columns: system (string), nodes (int64), variant (string), rep (int64),
seed (uint64; the configuration's seed, see plan.config_seed), runtime_ns
(float64); applications add compute_ns and communication_ns (float64,
communication = runtime - compute, see cloudnoise.schedules.apps).
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from cloudnoise import limits
from cloudnoise.errors import CloudnoiseError, shown
from cloudnoise.input_files import check_schema, read_json
from cloudnoise.output_files import atomic_write

if TYPE_CHECKING:  # the task module pulls in the engine; reading results needs only pyarrow
    from cloudnoise.sweep.task import ChunkResult

FORMAT = "cloudnoise-sweep/1"
META = "sweep.json"
RESULTS = "results.parquet"
PARTS = "parts"


def schema(kind: str) -> pa.Schema:
    """The results' columns for a collective or an application sweep."""
    fields = [
        ("system", pa.string()),
        ("nodes", pa.int64()),
        ("variant", pa.string()),
        ("rep", pa.int64()),
        ("seed", pa.uint64()),
        ("runtime_ns", pa.float64()),
    ]
    if kind == "app":
        fields += [("compute_ns", pa.float64()), ("communication_ns", pa.float64())]
    return pa.schema(fields)


def chunk_table(chunk: ChunkResult, kind: str) -> pa.Table:
    """A task's rows."""
    n = len(chunk.runtime_ns)
    t = chunk.task
    cols: dict[str, Any] = {
        "system": pa.array([t.system] * n, pa.string()),
        "nodes": pa.array(np.full(n, t.nodes, dtype=np.int64)),
        "variant": pa.array([t.variant] * n, pa.string()),
        "rep": pa.array(np.arange(t.first_rep, t.first_rep + n, dtype=np.int64)),
        "seed": pa.array(np.full(n, chunk.seed, dtype=np.uint64)),
        "runtime_ns": pa.array(chunk.runtime_ns.astype(np.float64)),
    }
    if kind == "app":
        compute = float(chunk.compute_ns or 0.0)
        cols["compute_ns"] = pa.array(np.full(n, compute, dtype=np.float64))
        cols["communication_ns"] = pa.array(chunk.runtime_ns.astype(np.float64) - compute)
    return pa.table(cols, schema=schema(kind))


def _schema() -> dict[str, Any]:
    """The JSON Schema of sweep.json: what every reader of it may rely on. A
    sweep folder may come from someone else; it is data, checked before use."""
    name = {"type": "string", "minLength": 1, "maxLength": 1000}
    opt_text = {"type": ["string", "null"], "maxLength": 100_000}
    compute = {
        "type": ["object", "null"],
        "required": ["seconds", "method"],
        "properties": {"seconds": {"type": "number", "minimum": 0, "maximum": limits.MAX_TIME_PS / 1e12},
                       "method": {"type": "string"}, "detail": {"type": "string"}},
    }
    return {
        "type": "object",
        "required": ["format", "experiment", "systems", "nodes", "variants", "reps", "seed"],
        "properties": {
            "format": {"const": FORMAT},
            "experiment": {
                "type": "object",
                "required": ["kind", "spec"],
                "properties": {
                    "name": {"type": ["string", "null"], "maxLength": 1000},
                    "kind": {"enum": ["collective", "app", "goal", "trace"]},
                    "spec": {"type": "string", "minLength": 1, "maxLength": 100_000},
                    "figure": opt_text,
                    "iterations": {"type": ["integer", "null"], "minimum": 1, "maximum": 2**31},
                    "gflops": {"type": ["number", "null"], "exclusiveMinimum": 0, "maximum": 1e12},
                    "compute": {"type": ["array", "null"], "items": compute, "maxItems": 10_000},
                },
            },
            "systems": {"type": "array", "items": name, "minItems": 1, "maxItems": 10_000},
            "nodes": {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": limits.MAX_RANKS},
                      "minItems": 1, "maxItems": 10_000},
            "variants": {"type": "array", "items": {"enum": ["none", "os", "network", "both"]}, "minItems": 1},
            "reps": {"type": "integer", "minimum": 1, "maximum": limits.MAX_REPS},
            "seed": {"type": "integer", "minimum": 0, "maximum": 2**64 - 1},
            "ready_order": {"enum": ["loggopsim", "program"]},
            "created": opt_text,
            "finished": opt_text,
            "complete": {"type": "boolean"},
            "cloudnoise_version": opt_text,
            "profiles": {
                "type": "object",
                "additionalProperties": {
                    "type": "object",
                    "required": ["source", "sha256"],
                    "properties": {"source": name, "sha256": {"type": "string"}},
                },
            },
        },
    }


META_SCHEMA = _schema()


def _atomic_write(path: Path, write: Any) -> None:
    """Writes through a temporary file in the same folder, then renames it into place."""
    atomic_write(path, lambda tmp: write(str(tmp)))


class SweepStore:
    """Reads and writes one sweep directory."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.dir = Path(directory)
        self.meta_path = self.dir / META
        self.parts_dir = self.dir / PARTS
        self.results_path = self.dir / RESULTS

    def read_meta(self) -> dict[str, Any] | None:
        """sweep.json, checked against META_SCHEMA, or None when the directory holds no sweep yet."""
        if self.dir.exists() and not self.dir.is_dir():
            raise CloudnoiseError(f"{self.dir}: not a directory; a sweep is a folder (sweep.json, results.parquet)")
        if not self.meta_path.exists():
            return None
        meta = read_json(self.meta_path, "sweep description (sweep.json)")
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            fmt = meta.get("format") if isinstance(meta, dict) else None
            raise CloudnoiseError(f"{self.meta_path}: unknown format {shown(fmt)}, not a {FORMAT} sweep")
        check_schema(meta, META_SCHEMA, str(self.meta_path), f"{FORMAT} sweep description")
        return meta

    def write_meta(self, meta: dict[str, Any]) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        text = json.dumps(meta, indent=2) + "\n"
        _atomic_write(self.meta_path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))

    def write_part(self, chunk: ChunkResult, kind: str) -> Path:
        """Saves one finished task (atomically; a rerun of the same task replaces it)."""
        self.parts_dir.mkdir(parents=True, exist_ok=True)
        path = self.parts_dir / f"{chunk.task.key}.parquet"
        table = chunk_table(chunk, kind)
        _atomic_write(path, lambda tmp: pq.write_table(table, tmp))
        return path

    def part_files(self) -> list[Path]:
        if not self.parts_dir.is_dir():
            return []
        return sorted(p for p in self.parts_dir.glob("*.parquet") if not p.name.startswith(".") and p.is_file())

    def _read(self, path: Path, kind: str) -> pa.Table:
        try:
            return pq.read_table(path, schema=schema(kind))
        except (OSError, pa.ArrowInvalid) as err:
            raise CloudnoiseError(f"{path}: unreadable ({err}); delete it and rerun with --resume to redo its task") from None

    def rows(self, kind: str) -> pa.Table:
        """Every saved row (merged results, then parts), duplicates dropped."""
        tables = []
        if self.results_path.exists():
            tables.append(self._read(self.results_path, kind))
        tables += [self._read(p, kind) for p in self.part_files()]
        if not tables:
            return schema(kind).empty_table()
        table = pa.concat_tables(tables)
        # A repetition's value never depends on the task that ran it, so copies are equal: keep one.
        keys = ["system", "nodes", "variant", "rep"]
        index = pa.table({**{k: table[k] for k in keys}, "_i": pa.array(np.arange(table.num_rows))})
        first = index.group_by(keys, use_threads=False).aggregate([("_i", "min")])["_i_min"]
        if len(first) == table.num_rows:
            return table
        return table.take(pa.array(np.sort(first.to_numpy())))

    def done(self, kind: str) -> dict[tuple[str, int, str], set[int]]:
        """Repetitions already saved, per (system, nodes, variant)."""
        t = self.rows(kind)
        out: dict[tuple[str, int, str], set[int]] = defaultdict(set)
        for s, n, v, r in zip(*(t[c].to_pylist() for c in ("system", "nodes", "variant", "rep"))):
            out[(s, n, v)].add(r)
        return out

    def merge(self, meta: dict[str, Any]) -> pa.Table:
        """Writes results.parquet with exactly the grid's rows, in grid order, then drops the parts."""
        table = select(self.rows(meta["experiment"]["kind"]), meta)
        _atomic_write(self.results_path, lambda tmp: pq.write_table(table, tmp))
        for p in self.part_files():
            p.unlink()
        return table


def select(table: pa.Table, meta: dict[str, Any]) -> pa.Table:
    """The rows of the grid sweep.json describes, ordered by system, nodes, variant
    (as listed there) and repetition."""
    systems = {s: i for i, s in enumerate(meta["systems"])}
    nodes = {n: i for i, n in enumerate(meta["nodes"])}
    variants = {v: i for i, v in enumerate(meta["variants"])}
    reps = int(meta["reps"])
    cols = [table[c].to_pylist() for c in ("system", "nodes", "variant", "rep")]
    order = []
    for i, (s, n, v, r) in enumerate(zip(*cols)):
        if s in systems and n in nodes and v in variants and 0 <= r < reps:
            order.append(((systems[s], nodes[n], variants[v], r), i))
    order.sort()
    return table.take(pa.array([i for _, i in order], pa.int64()))


def by_config(table: pa.Table, column: str = "runtime_ns") -> dict[tuple[str, int, str], np.ndarray]:
    """`column` of a results table split per (system, nodes, variant), in the
    table's order (grid order, then repetition, for `load_results`'s tables)."""
    keys = list(zip(*(table[c].to_pylist() for c in ("system", "nodes", "variant"))))
    values = table[column].to_numpy().astype(np.float64)
    out: dict[tuple[str, int, str], list[int]] = defaultdict(list)
    for i, key in enumerate(keys):
        out[key].append(i)
    return {key: values[rows] for key, rows in out.items()}


def load_results(directory: str | os.PathLike[str]) -> pa.Table:
    """Every repetition of the sweep in `directory` so far, as a pyarrow Table.

    Works on a finished sweep (results.parquet) and on an unfinished or
    interrupted one (the finished tasks' parts); rows are in grid order:
    system, nodes, variant as listed in sweep.json, then repetition."""
    store = SweepStore(directory)
    meta = store.read_meta()
    if meta is None:
        raise CloudnoiseError(f"{directory}: no {META} here; give the --out folder of a sweep")
    return select(store.rows(meta["experiment"]["kind"]), meta)
