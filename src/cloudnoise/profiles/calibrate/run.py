"""`cloudnoise profiles calibrate`: fit, write the profiles, write the record.

    calibrate(out_dir)          fits the systems it models (priors.py,
                                fit.py), writes OUT/NAME.json for each and
                                OUT/calibration.json: the parameters, every
                                fit's evaluations, every target that reads
                                only these models checked (Table II cells,
                                Sec. III-IV prose, Sec. V-B simulations),
                                the conflicts and the choices.
    assemble_only(out_dir)      rewrites the profiles from the parameters of
                                an existing record (seconds; what the test
                                of the committed files does).

Deterministic: the same seed and repetitions give the same files bit for
bit, whatever the number of threads (the engine's repetition r depends only
on (seed, r)); parameters are written with 4 significant digits and record
values with 6.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cloudnoise.errors import CloudnoiseError
from cloudnoise.paper import statements as T
from cloudnoise.paper.statements import check
from cloudnoise.profiles.calibrate.assemble import (
    FORMAT, RECORD, SystemParams, build_profile, read_params, write_profiles,
)
from cloudnoise.profiles.calibrate.conflicts import conflicts
from cloudnoise.profiles.calibrate.fit import Fitter, run_fits
from cloudnoise.profiles.calibrate.simulations import CalibrationRuns, NotModelled, Simulator
from cloudnoise.profiles.paper import PAPER

SEED = 20220718  # the date of Table I's prices
FIT_REPS = 100  # repetitions per evaluation while fitting (40 left the heavy-tailed fits 5-10% off on other seeds)
CHECK_REPS = 200  # repetitions per configuration for the record's check of the simulated targets


def _sig(x: Any) -> Any:
    """Floats to 6 significant digits, recursively (stable files)."""
    if isinstance(x, float):
        return float(f"{x:.6g}") if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: _sig(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_sig(v) for v in x]
    return x


def evaluate(params: dict[str, SystemParams], sim: Simulator) -> list[dict[str, Any]]:
    """Every target that reads only these parameters' profiles, checked
    against them (the others read systems whose built-in noise is the
    artifact's, which the calibration does not model, or nothing the model
    represents)."""
    runs = CalibrationRuns({name: build_profile(name, p) for name, p in params.items()}, sim)
    out = []
    for s in T.TARGETS:
        if s.measure is None or any(c.system not in params for c in s.needs()):
            continue  # skipped before simulating any of it
        try:
            out.append(check(s, runs).to_dict())
        except NotModelled:
            continue  # a statement on the models that reads another system
    return out


def _summary(outcomes: list[dict[str, Any]]) -> dict[str, Any]:
    groups = {"simulated (Sec. V-B, Obs. 8-9, Sec. V-D shares)": {s.id for s in T.SIMULATED},
              "prose (Sec. III-IV)": {s.id for s in T.PROSE}, "Table II cells": {s.id for s in T.TABLE_2}}
    out = {}
    for name, ids in groups.items():
        rows = [o for o in outcomes if o["id"] in ids]
        out[name] = {"agree": sum(o["agrees"] for o in rows), "total": len(rows)}
    out["all"] = {"agree": sum(o["agrees"] for o in outcomes), "total": len(outcomes)}
    return out


def _write_json(path: Path, data: Any) -> None:
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(tmp, 0o644)  # mkstemp makes it private; the record is package data others read
    os.replace(tmp, path)


def calibrate(out_dir: Path, *, seed: int = SEED, fit_reps: int = FIT_REPS, check_reps: int = CHECK_REPS,
              threads: int | None = None, log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Fits every system, writes the profiles and the record into `out_dir`."""
    out_dir = Path(out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise CloudnoiseError(f"{out_dir}: cannot write there ({err.strerror or err})") from None
    say = log or (lambda _m: None)
    kwargs = {} if threads is None else {"threads": threads}
    fitter = Fitter(Simulator(seed=seed, reps=fit_reps, **kwargs), log=say)
    run_fits(fitter)
    params = {name: p.rounded() for name, p in fitter.params.items()}
    say(f"checking the targets on these models ({check_reps} repetitions per simulated configuration)")
    check_sim = Simulator(seed=seed + 1, reps=check_reps, **kwargs)
    outcomes = evaluate(params, check_sim)
    record = {
        "format": FORMAT,
        "paper": PAPER,
        "command": f"cloudnoise profiles calibrate --seed {seed} --fit-reps {fit_reps} --check-reps {check_reps}",
        "scope": "the systems whose built-in noise is the paper's text (the artifact has no run of theirs) and what "
                 "they borrow (c5n.metal's fitted tail and long detours); the targets that read only these models",
        "seed": seed,
        "fit_reps": fit_reps,
        "check_reps": check_reps,
        "check_seed": seed + 1,
        "parameters": {name: params[name].to_dict() for name in sorted(params)},
        "fits": [r.to_dict() for r in fitter.results],
        "summary": _summary(outcomes),
        "targets": outcomes,
        "conflicts": conflicts(params),
    }
    record = _sig(record)
    write_profiles(out_dir, params)
    _write_json(out_dir / RECORD, record)
    return record


def assemble_only(out_dir: Path, record_path: Path) -> list[Path]:
    """Rewrites the profiles from a record's parameters (no simulation)."""
    return write_profiles(Path(out_dir), read_params(record_path))
