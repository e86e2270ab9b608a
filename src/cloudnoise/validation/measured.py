"""`cloudnoise validate --measured DIR`: collective runs measured on another
machine against the simulation of the same schedules.

The runs are read by a reader per format (today the paper artifact's per-rank
CSVs, `artifact_csv.py`, from a folder or a streamed archive,
`measured_files.py`); each is mapped to the schedule its program ran
(`artifact_schedules.py`), simulated with the profile (`config.py`) and
compared as `validate` compares its own runs (`compare.py`). The result has
the suite's shape: one row per configuration (`config`, `measured_median_us`,
`simulated_median_us`, ..., plus the p90s and the run it came from), the
median and worst |error|, and one line per file that could not be used.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from cloudnoise.errors import CloudnoiseError
from cloudnoise.validation import artifact_csv
from cloudnoise.validation.artifact_schedules import RunSchedule, UnmappedRun, run_schedule
from cloudnoise.validation.config import Config, check_completes, simulate_config
from cloudnoise.validation.measured_files import ARCHIVE_ERRORS, measured_files


@dataclass
class MeasuredRun:
    """One measured file: the run it belongs to, where it is, what its name
    says, and every repetition's runtime (ns, the slowest rank's)."""

    run: str
    where: str
    name: artifact_csv.RunName
    runtime_ns: np.ndarray


def read_runs(source: Path) -> Iterator[MeasuredRun | str]:
    """Every collective run under ``source`` (a folder, an archive, or a folder
    of archives), one at a time; a file that cannot be read is a one-line
    string naming it and why, and the others are still read."""
    found = False
    for f in measured_files(source, lambda name: name.endswith(".csv")):
        found = True
        if f.open_lines is None:
            yield f"{f.where}: {f.problem}"
            continue
        try:
            name = artifact_csv.parse_name(f.name)
            with f.open_lines() as lines:
                runtimes = artifact_csv.read_runtimes(lines, f.where, name.nodes, name.size)
        except artifact_csv.MeasuredFileError as err:
            text = str(err)
            if text.startswith(f"{f.name}:"):  # the name's own error: say where the file is instead
                text = f.where + text[len(f.name):]
            yield text if text.startswith(f.where) else f"{f.where}: {text}"
            continue
        except UnicodeDecodeError:
            yield f"{f.where}: not text (UTF-8)"
            continue
        except ARCHIVE_ERRORS as err:
            yield f"{f.where}: cut or damaged ({err})"
            continue
        yield MeasuredRun(f.run, f.where, name, runtimes)
    if not found:
        raise CloudnoiseError(f"{source}: no collective runs (*.csv) in it. Give a folder of runs or a run's .tar.xz")


def compare_runs(source: Path, params: Any, noise: Any, variants: list[str], reps: int, seed: int,
                 ready_order: str = "program", keep: bool = False, progress: Any = None) -> dict[str, Any]:
    """Read every run under ``source``, simulate its schedule ``reps`` times
    per noise variant (once per schedule: runs of one schedule share it) and
    compare. Returns the JSON object `validate --measured --json` prints;
    with ``keep`` its ``"_samples"`` holds (label, ranks, measured ns,
    simulated ns) per row for the figures."""
    from cloudnoise.validation import compare
    from cloudnoise.validation.suite import summarize_rows

    rows: list[dict[str, Any]] = []
    refused: list[str] = []
    samples: list[tuple[str, int, np.ndarray, np.ndarray]] = []
    simulated: dict[tuple[Any, ...], tuple[RunSchedule, dict[str, np.ndarray]]] = {}
    for k, item in enumerate(read_runs(source)):
        if isinstance(item, str):
            refused.append(item)
            continue
        run = item.name
        key = (run.pattern, run.nodes, run.size, run.nocompute)
        if progress is not None:
            progress.update(k, k + 1, f"{run.program} {run.nodes} nodes {run.size} B")
        if key not in simulated:
            try:
                sched = run_schedule(run)
            except UnmappedRun as err:
                refused.append(f"{item.where}: {err}")
                continue
            config = Config(run.nodes, run.program, sched.schedule)
            check_completes(config, params, ready_order)
            simulated[key] = (sched, simulate_config(config, params, noise, variants, reps, seed, ready_order))
        sched, sim = simulated[key]
        comparison = compare.compare(run.nodes, item.runtime_ns, sim, variants[0])
        row = comparison.row()
        label = f"{run.program} {run.size} B"
        rows.append({
            "config": label,
            "run": item.run,
            "file": item.where,
            "pattern": run.pattern,
            "variant": run.variant,
            "size_bytes": run.size,
            "schedule": sched.describe(),
            **{k: v for k, v in row.items() if k not in ("measured_ns", "simulated_ns")},
        })
        if keep:
            samples.append((f"{label}, {item.run}", run.nodes, item.runtime_ns, sim[variants[0]]))
    if not rows:
        raise CloudnoiseError(f"{source}: none of its {len(refused)} collective run(s) could be compared: "
                              + (refused[0] if refused else "no runs"))
    rows.sort(key=lambda r: (r["run"], r["pattern"], r["variant"], r["size_bytes"], r["ranks"]))
    result = summarize_rows(rows)
    from cloudnoise.validation.run_spread import run_spread

    result.update({
        "spread": run_spread(rows, variants),
        "source": str(source),
        "params_ns": params.as_ns(),
        "noise": variants[0],
        "noise_variants": variants,
        "noise_sources": noise.describe(),
        "reps": reps,
        "seed": seed,
        "ready_order": ready_order,
        "paper_bound": compare.PAPER_BOUND,
        "refused": refused,
        "time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    })
    if keep:
        result["_samples"] = samples
    return result


def write_outputs(result: dict[str, Any], out: Path) -> None:
    """summary.json and the figure (a measured/simulated boxplot pair per node
    count, one figure per program, size and run) into ``out``."""
    from cloudnoise.validation import figures

    out.mkdir(parents=True, exist_ok=True)
    groups: dict[str, list[tuple[int, np.ndarray, np.ndarray]]] = {}
    for label, ranks, measured, sim in result.pop("_samples", []):
        groups.setdefault(label, []).append((ranks, measured, sim))
    written = []
    for label, configs in groups.items():
        stem = "".join(c if c.isalnum() or c in "-_" else "-" for c in label)
        written += figures.boxplot_pairs(sorted(configs, key=lambda c: c[0]),
                                         f"{label}: measured vs simulated ({result['noise']} noise)",
                                         out / "figures" / stem, result["noise"])
    result["figures"] = [str(f) for f in written]
    result["out"] = str(out)
    tmp = out / ".summary.json.tmp"
    tmp.write_text(json.dumps(result, indent=2, default=str) + "\n")
    tmp.replace(out / "summary.json")


def print_table(result: dict[str, Any]) -> None:
    """The verdict table, its summary and the refused files."""
    from rich.table import Table

    from cloudnoise.console import stdout_console
    from cloudnoise.validation.compare import verdict_lines
    from cloudnoise.validation.suite import error_cell

    console = stdout_console()
    table = Table(title=f"validate --measured {result['source']}: measured vs simulated ({result['noise']} noise, "
                        f"{result['reps']} simulated repetitions), times in us")
    for col in ("config", "nodes", "run", "reps", "measured median", "simulated median", "error",
                "measured p90", "simulated p90", "error p90"):
        table.add_column(col, justify="left" if col in ("config", "run") else "right", no_wrap=True)
    for r in result["results"]:
        table.add_row(r["config"], str(r["ranks"]), r["run"], str(r["reps"]), f"{r['measured_median_us']:.4g}",
                      f"{r['simulated_median_us']:.4g}", error_cell(r["signed_error_median"]),
                      f"{r['measured_p90_us']:.4g}", f"{r['simulated_p90_us']:.4g}", error_cell(r["signed_error_p90"]))
    console.print(table)
    for line in verdict_lines(result):
        console.print(line)
    if result.get("spread"):
        from cloudnoise.validation.run_spread import print_spread

        print_spread(result["spread"], result["noise_variants"])
    for line in result["refused"]:
        console.print(f"[yellow]not compared:[/] {line}")
    if result.get("out"):
        console.print(f"Summary and figures in {result['out']}")
