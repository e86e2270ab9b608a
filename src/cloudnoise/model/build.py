"""Turn a measurement campaign into a system profile (``cloudnoise model build``).

The profile is written in the ``cloudnoise-profile/1`` format owned by
``cloudnoise.model.profile`` (docs/profile-format.md): one JSON file plus the
noise data it names, next to it, by relative path. What comes from where:

* ``loggops``: the ``loggp`` experiment's fit (measured). Without one, it is
  reconstructed the way the built-in profiles are: o = 10 % of the minimum
  latency, L = min latency - 2o, g = o, G = 8 / max bandwidth [Gb/s] ns/B,
  O = 0, S = 65535 B.
* ``latency_noise``: per-message latency excess samples (ns), from
  ``latency-noise`` (else the smallest size of ``latency``), written to
  ``<profile>.latency_noise.parquet`` column ``excess_ns``. The simulator
  charges a small message 2o + L + excess, so L and the excess are made to
  reproduce the measured one-way times T together (`consistent_latency`):
  L = min T - 2o (at least 0) and excess = T - 2o - L (at least 0). A fit's
  L describes the *median* T; adding an excess over the *minimum* on top of
  it would count the median's distance from the minimum twice.
* ``bandwidth_noise``: samples of the bandwidth as a fraction of its maximum,
  from ``bandwidth-noise`` (else the best size of ``bandwidth``/``latency``),
  ``<profile>.bandwidth_noise.parquet`` column ``fraction``. The simulator
  charges a byte G / fraction, so a fitted G (which describes the *median*
  transfer) is scaled by the median fraction (`consistent_gap`): the
  simulated median is then the fitted one, where an unscaled G would count
  the median's distance from the peak twice, as with L above.
* ``os_noise``: the ``os-noise`` selfish-detour trace, copied to
  ``<profile>.os_noise.trace``.
* ``table2``: the campaign's Table II figures, under the node distance its
  ``distance`` label names (same rack when unknown, said in the source).

An experiment the campaign lists but whose samples are missing or empty is
an error (a profile silently built without its latency noise would simulate
a quieter system than the one measured); ``allow_missing`` builds it anyway,
and the profile's provenance and the returned ``missing`` list say what was
left out. Nothing is written until the whole profile is built and loads
back: its files are made in a temporary folder beside ``out`` and renamed
into place, so a failed build never destroys an earlier profile.

The dict is built here rather than through the profile dataclasses so this
module works on its own; when ``cloudnoise.model.profile`` is importable the
result is validated by loading it back.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from cloudnoise.errors import CloudnoiseError, shown
from cloudnoise.measure.campaign_files import read_experiment_summary, read_metadata, read_summary
from cloudnoise.output_files import default_file_mode

FORMAT = "cloudnoise-profile/1"
DEFAULT_S = 65535


def _measured(source: str) -> dict[str, str]:
    return {"kind": "measured", "source": source}


def _one_way_ns(campaign: Path, experiment: str, meta: dict[str, Any]) -> tuple[np.ndarray, np.ndarray] | None:
    """(size_bytes, RTT/2 ns) of an experiment's ping-pong samples, measuring runs only;
    None when the campaign has no such experiment."""
    if experiment not in meta.get("experiments", {}):
        return None
    path = campaign / experiment / "samples.parquet"
    if not path.is_file():
        raise MissingPart(f"{experiment}/samples.parquet is missing")
    try:
        table = pq.read_table(path, columns=["kind", "size_bytes", "value_ns", "run"])
    except (OSError, pa.ArrowException) as err:
        raise CloudnoiseError(f"{path}: cannot read the samples ({shown(str(err), 200)})") from None
    kinds = table.column("kind").cast(pa.string())
    is_rtt = pc.equal(kinds, "rtt").to_numpy(zero_copy_only=False)
    plan = meta.get("experiments", {}).get(experiment, {}).get("plan", [])
    measuring = [i for i, run in enumerate(plan) if run.get("role", "measure") == "measure"]
    runs = table.column("run").to_numpy()
    keep = is_rtt & np.isin(runs, measuring)
    sizes = table.column("size_bytes").to_numpy()[keep]
    half = table.column("value_ns").to_numpy()[keep] / 2.0
    if not len(half):
        raise MissingPart(f"{experiment}/samples.parquet holds no ping-pong sample")
    if not np.all(np.isfinite(half)) or np.any(half <= 0) or np.any(sizes < 1):
        raise CloudnoiseError(f"{path}: holds impossible samples (non-positive or non-finite times or sizes)")
    return sizes, half


class MissingPart(CloudnoiseError):
    """An experiment the campaign lists whose data is missing or empty."""


def _latency_samples(
    campaign: Path, meta: dict[str, Any] | None = None, missing: list[str] | None = None
) -> tuple[np.ndarray, str] | None:
    meta = read_metadata(campaign) if meta is None else meta
    missing = [] if missing is None else missing
    for exp in ("latency-noise", "latency"):
        got = _part(lambda: _one_way_ns(campaign, exp, meta), missing)
        if got is not None:
            sizes, half = got
            sel = sizes == sizes.min()
            return half[sel], f"{exp} ({int(sizes.min())} B ping-pongs)"
    return None


def _bandwidth_samples(
    campaign: Path, meta: dict[str, Any] | None = None, missing: list[str] | None = None
) -> tuple[np.ndarray, str] | None:
    meta = read_metadata(campaign) if meta is None else meta
    missing = [] if missing is None else missing
    for exp in ("bandwidth-noise", "bandwidth", "latency"):
        got = _part(lambda: _one_way_ns(campaign, exp, meta), missing)
        if got is None:
            continue
        sizes, half = got
        best, best_bw = None, 0.0
        for s in np.unique(sizes):
            bw = s * 8.0 / half[sizes == s].min()
            if bw > best_bw:
                best, best_bw = s, bw
        if best is None or (exp == "latency" and best < 65536):
            continue
        return best * 8.0 / half[sizes == best], f"{exp} ({int(best)} B ping-pongs)"
    return None


def _part(read: Any, missing: list[str]) -> Any:
    """`read()`, or None with the missing part noted (the caller decides whether that is allowed)."""
    try:
        return read()
    except MissingPart as err:
        if str(err) not in missing:
            missing.append(str(err))
        return None


def _number(table: dict[str, Any], key: str, where: str) -> float:
    """A finite number from a summary, or an error naming it."""
    value = table.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise CloudnoiseError(f"{where}: {key} is {shown(value)}, not a finite number; re-measure it")
    return float(value)


def consistent_latency(one_way_ns: np.ndarray, o_ns: float) -> tuple[float, np.ndarray]:
    """L and per-message excess samples such that 2o + L + excess equals each
    measured one-way time T (exactly where min T >= 2o; where the overheads
    alone exceed some T, as on shared memory, those T come out as 2o)."""
    base = max(0.0, float(one_way_ns.min()) - 2.0 * o_ns)
    return base, np.maximum(0.0, one_way_ns - 2.0 * o_ns - base)


def consistent_gap(fitted_G: float, fraction: np.ndarray) -> float:
    """G such that the simulated per-byte time G / fraction has the fitted G as
    its median: the median of G / f is G / median(f), so G = fitted G x
    median(f). Rounded to whole femtoseconds, the engine's resolution."""
    return round(float(fitted_G) * float(np.median(fraction)), 6)


def _write_column(path: Path, name: str, values: np.ndarray) -> None:
    pq.write_table(pa.table({name: pa.array(values, pa.float64())}), path, compression="zstd")


def build_profile(
    campaign: Path,
    out: Path,
    name: str | None = None,
    on_demand_price: float | None = None,
    committed_price: float | None = None,
    allow_missing: bool = False,
) -> dict[str, Any]:
    """Write the profile for ``campaign`` to ``out`` (and its data files next
    to it); returns the profile dict, with ``missing`` listing the parts left
    out (only with ``allow_missing``; otherwise a missing part is an error)."""
    campaign = Path(campaign)
    out = Path(out)
    if out.is_dir():
        raise CloudnoiseError(f"{out}: is a directory; -o names the profile file to write (e.g. {out}/system.json)")
    if out.suffix.lower() != ".json":
        raise CloudnoiseError(f"-o {out}: a profile is a .json file; give a name ending in .json")
    for price, what in ((on_demand_price, "--on-demand-price"), (committed_price, "--committed-price")):
        if price is not None and not (math.isfinite(price) and 0 <= price <= 1e6):
            raise CloudnoiseError(f"{what} {price!r}: a price per node-hour is a finite number in [0, 1e6] USD")
    meta = read_metadata(campaign)
    summary = read_summary(campaign)
    labels: dict[str, str] = meta.get("labels", {})
    t2 = summary.get("table2", {})
    experiments = meta.get("experiments", {})
    if not experiments:
        raise CloudnoiseError(f"{campaign} holds no measurement yet; run cloudnoise measure first")
    incomplete = sorted(n for n, e in experiments.items() if not e.get("complete"))
    where = f"campaign {campaign.resolve().name}"
    if incomplete:
        where += f" (incomplete: {', '.join(incomplete)})"
    stem = out.name[: -len(".json")]
    profile_name = name or labels.get("system") or campaign.resolve().name
    missing: list[str] = []
    files: dict[str, Any] = {}  # file name -> how to write it into a folder

    loggp = read_experiment_summary(campaign, "loggp") if "loggp" in experiments else None
    if "loggp" in experiments and loggp is None:
        missing.append("loggp/summary.json is missing")
    if loggp is not None:
        fit = loggp.get("loggp", {})
        fit_where = f"{campaign}/loggp/summary.json"
        L, o, g, G, O, S = (_number(fit, k, fit_where) for k in ("L", "o", "g", "G", "O", "S"))
        r2 = {k: fit.get(k) if isinstance(fit.get(k), (int, float)) else float("nan")
              for k in ("r2_eager", "r2_rendezvous")}
        loggops = {
            "provenance": _measured(
                f"{where}: loggp fit (ping-pongs, send trains, receive overheads; "
                f"R^2 eager {r2['r2_eager']:.3f}, rendezvous {r2['r2_rendezvous']:.3f})"),
            "L": L, "o": o, "g": g,
            # per-byte figures to whole femtoseconds, the engine's resolution
            "G": round(G, 6), "O": round(O, 6), "S": int(S) or DEFAULT_S,
        }
        if fit.get("O_rendezvous") is not None and int(S):
            loggops["O_rendezvous"] = round(_number(fit, "O_rendezvous", fit_where), 6)
    elif "min_latency_us" in t2 and "max_bandwidth_gbps" in t2:
        t2_where = f"{campaign}/summary.json: table2"
        min_ns = _number(t2, "min_latency_us", t2_where) * 1e3
        max_gbps = _number(t2, "max_bandwidth_gbps", t2_where)
        if not (min_ns > 0 and max_gbps > 0):
            raise CloudnoiseError(f"{t2_where}: the minimum latency and maximum bandwidth must be positive")
        o = 0.1 * min_ns
        loggops = {
            "provenance": {"kind": "reconstructed", "source": (
                f"{where}: no loggp run; from the measured min latency and max bandwidth as the built-ins: "
                "o = 10% of min latency, L = min - 2o, g = o, G = 8 / max Gb/s, O = 0, S = 65535 B")},
            "L": min_ns - 2 * o, "o": o, "g": o, "G": 8.0 / max_gbps, "O": 0.0, "S": DEFAULT_S,
        }
    else:
        raise CloudnoiseError(
            f"{campaign} has neither a loggp run nor latency and bandwidth figures; "
            "run cloudnoise measure loggp (or latency and bandwidth) into it first")

    distance = labels.get("distance", "unknown")
    figures = {
        "min_latency_us": t2.get("min_latency_us"),
        "mean_latency_us": t2.get("mean_latency_us"),
        "max_bandwidth_gbit_s": t2.get("max_bandwidth_gbps"),
        "mean_bandwidth_gbit_s": t2.get("mean_bandwidth_gbps"),
    }
    figures = {k: v if isinstance(v, (int, float)) and math.isfinite(v) else None for k, v in figures.items()}
    table2 = {"provenance": _measured(
        f"{where}: latency from {t2.get('latency_from', 'n/a')}, bandwidth from {t2.get('bandwidth_from', 'n/a')}"
        + ("; node distance unknown, filed under same rack" if distance == "unknown" else ""))}
    table2["different_racks" if distance == "different-racks" else "same_rack"] = figures

    profile: dict[str, Any] = {
        "format": FORMAT,
        "name": profile_name,
        "description": f"Measured by cloudnoise {meta.get('cloudnoise_version', '')} on "
                       f"{', '.join(meta.get('hosts', [])) or 'unknown hosts'} "
                       f"({meta.get('mpi', {}).get('library', 'MPI')})",
        "labels": [f"{k}={v}" for k, v in sorted(labels.items())],
        "hardware": {
            "provenance": _measured(f"{where}: metadata of the launching host"),
            **({"instance_type": labels["instance"]} if labels.get("instance") else {}),
            "cpu": meta.get("cpu_model"),
            "os": meta.get("os"),
        },
        "prices": {
            "provenance": {"kind": "published", "source": (
                "given to cloudnoise model build" if on_demand_price is not None or committed_price is not None
                else "not given to cloudnoise model build (pass --on-demand-price / --committed-price)")},
            "currency": "USD",
            "committed_per_node_hour": committed_price,
            "on_demand_per_node_hour": on_demand_price,
        },
        "table2": table2,
        "loggops": loggops,
    }

    lat = _latency_samples(campaign, meta, missing)
    if lat is not None:
        half, src = lat
        base, excess = consistent_latency(half, float(loggops["o"]))
        fitted_L = loggops["L"]
        loggops["L"] = base
        loggops["provenance"]["source"] += (
            f"; L = min RTT/2 of {src} - 2o = {base:.4g} ns (was {fitted_L:.4g}), so that 2o + L + latency noise "
            "reproduces the measured one-way times")
        file = f"{stem}.latency_noise.parquet"
        files[file] = lambda path, v=excess: _write_column(path, "excess_ns", v)
        profile["latency_noise"] = {
            "provenance": _measured(f"{where}: {src}, RTT/2 - 2o - L, every sample"),
            "samples": file, "column": "excess_ns",
        }
    bw = _bandwidth_samples(campaign, meta, missing)
    if bw is not None:
        gbps, src = bw
        file = f"{stem}.bandwidth_noise.parquet"
        fraction = gbps / gbps.max()
        files[file] = lambda path, v=fraction: _write_column(path, "fraction", v)
        if loggp is not None:
            fitted_G = loggops["G"]
            loggops["G"] = consistent_gap(fitted_G, fraction)
            loggops["provenance"]["source"] += (
                f"; G = fitted G x median bandwidth fraction = {loggops['G']:.6g} ns/B (was {fitted_G:.6g}), "
                "so that G / bandwidth noise reproduces the measured median transfer times")
        profile["bandwidth_noise"] = {
            "provenance": _measured(f"{where}: {src}, bandwidth over its maximum, every sample"),
            "samples": file, "column": "fraction",
        }
    trace = campaign / "os-noise" / "os_noise.trace"
    if "os-noise" in experiments and not trace.is_file():
        missing.append("os-noise/os_noise.trace is missing")
    elif trace.is_file():
        if trace.stat().st_size == 0:
            missing.append("os-noise/os_noise.trace is empty")
        else:
            file = f"{stem}.os_noise.trace"
            files[file] = lambda path, src=trace: shutil.copyfile(src, path)
            profile["os_noise"] = {"provenance": _measured(f"{where}: selfish detour, rank 0"), "trace": file}

    if missing and not allow_missing:
        raise CloudnoiseError(
            f"{campaign}: {'; '.join(missing)} (the campaign lists the experiment); measure it again "
            "(cloudnoise measure ... --out CAMPAIGN --resume), or pass --allow-missing to build the profile without it"
        )
    if missing:
        loggops["provenance"]["source"] += f"; built without: {', '.join(missing)}"
    profile["hardware"] = {k: v for k, v in profile["hardware"].items() if v is not None}
    text = json.dumps(profile, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    files[out.name] = lambda path: path.write_text(text, encoding="utf-8")
    _write_all(out.parent, files, out.name)
    profile["missing"] = missing
    return profile


def _write_all(folder: Path, files: dict[str, Any], profile_file: str) -> None:
    """Writes every file into a temporary folder beside the target, loads the
    profile back from there, then renames each into `folder` (the profile
    last). A failure anywhere leaves `folder` as it was."""
    folder.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{profile_file}.build-", dir=folder))
    try:
        for name, write in files.items():
            write(tmp / name)
            os.chmod(tmp / name, default_file_mode())
        _validate(tmp / profile_file)
        for name in sorted(files, key=lambda n: n == profile_file):
            os.replace(tmp / name, folder / name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _validate(path: Path) -> None:
    """Load the profile back with the format's own reader, as simulate will."""
    from cloudnoise.model.profile import load_profile

    profile = load_profile(path)
    profile.latency_distribution()
    profile.bandwidth_distribution()
    profile.os_noise_source()
