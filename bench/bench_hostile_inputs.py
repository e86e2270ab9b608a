"""Files from someone else, damaged or hostile, through the commands that read them.

    python bench/bench_hostile_inputs.py                  # 60 mutants per input kind, seed 1
    python bench/bench_hostile_inputs.py --mutants 200 --seed 7 --keep /tmp/hostile

Each kind of input a user may be handed is written once, correct, then
damaged --mutants times (seeded, so a run can be repeated): truncated at a
random byte, random bytes flipped, a line deleted or repeated, a number
replaced by a huge, negative, fractional or non-finite one, binary garbage,
an empty file, a directory in place of the file. Every mutant goes through
the command that reads that kind of file, in its own process:

* GOAL schedule:    cloudnoise simulate FILE.goal --json
* profile (JSON):   cloudnoise simulate --pattern dissemination --ranks 16 --size 16B --profile FILE --reps 3 --json
* OS-noise trace:   cloudnoise simulate --pattern dissemination --ranks 16 --size 16B --os-noise FILE --reps 3 --json
* application TOML: cloudnoise simulate --app FILE --ranks 16 --json

Each run is classed as: accepted (exit 0; the damage left a valid file),
refused (exit 2 or 3 and one line on stderr, `cloudnoise: error: ...`),
or a defect: a traceback or crash report, any other exit, a signal (a
segfault), more than one line of error, or a hang (over --timeout seconds).
The target is no defect at all. Defects are listed with the file kept, to
repeat them.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from cloudnoise.profiles.api import copy_profile
from cloudnoise.schedules.patterns import CollectiveSpec, write_goal

ROOT = Path(__file__).resolve().parents[1]
PROFILE = ROOT / "src" / "cloudnoise" / "profiles" / "data" / "daint.json"
TRACE = "# start_ns\tduration_ns\n" + "".join(f"{1000 * i + 500}\t{200 + 7 * (i % 5)}\n" for i in range(200))
APP = """# a small iterative application (docs/how-to/applications.md)
name = "hostile"
iterations = 3

[[phase]]
compute = "20us"

[[phase]]
collective = "allreduce_recdoub"
size = "1KiB"
"""
NUMBERS = ["99999999999999999999999", "-1", "-99999", "0", "1e308", "1e999", "nan", "inf", "-0.5", "0.000001",
           "18446744073709551617", "2147483648"]


def seeds(work: Path) -> dict[str, tuple[Path, list[str]]]:
    """kind -> (correct file, the command line with FILE in it)."""
    goal = work / "seed.goal"
    write_goal(CollectiveSpec(pattern="dissemination", ranks=16, size=16), goal)
    # the JSON with its side files (a profile loads only with them): the mutations hit the JSON
    profile = copy_profile(PROFILE, work)
    trace = work / "seed.trace"
    trace.write_text(TRACE)
    app = work / "seed.toml"
    app.write_text(APP)
    small = ["--pattern", "dissemination", "--ranks", "16", "--size", "16B", "--reps", "3", "--json"]
    return {
        "goal": (goal, ["simulate", "FILE", "--json"]),
        "profile": (profile, ["simulate", *small, "--profile", "FILE"]),
        "os-noise trace": (trace, ["simulate", *small, "--os-noise", "FILE"]),
        "app toml": (app, ["simulate", "--app", "FILE", "--ranks", "16", "--json"]),
    }


def mutate(data: bytes, rng: random.Random) -> tuple[str, bytes | None]:
    """One damaged copy of `data` and what was done; None: a directory in place of the file."""
    how = rng.choice(["truncate", "flip", "delete-line", "repeat-line", "number", "number", "number", "garbage",
                      "empty", "directory", "swap-lines"])
    lines = data.split(b"\n")
    if how == "truncate":
        return how, data[: rng.randrange(len(data))]
    if how == "flip":
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return how, bytes(b)
    if how == "delete-line":
        del lines[rng.randrange(len(lines))]
        return how, b"\n".join(lines)
    if how == "repeat-line":
        i = rng.randrange(len(lines))
        lines[i:i] = [lines[i]] * rng.choice([2, 100, 10000])
        return how, b"\n".join(lines)
    if how == "swap-lines":
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        return how, b"\n".join(lines)
    if how == "number":
        spans = [m.span() for m in re.finditer(rb"\d+(\.\d+)?", data)]
        if not spans:
            return how, data
        a, b_ = rng.choice(spans)
        new = rng.choice(NUMBERS).encode()
        return f"number->{new.decode()}", data[:a] + new + data[b_:]
    if how == "garbage":
        return how, bytes(rng.randrange(256) for _ in range(rng.choice([1, 100, 5000])))
    if how == "empty":
        return how, b""
    return how, None


def classify(proc: subprocess.CompletedProcess | None) -> str:
    if proc is None:
        return "hang"
    err = proc.stderr.strip().splitlines()
    if proc.returncode == 0:
        return "accepted"
    if proc.returncode < 0:
        return f"signal {-proc.returncode}"
    if "Traceback" in proc.stderr or "crash report" in proc.stderr:
        return "traceback"
    if proc.returncode in (2, 3) and len(err) == 1 and err[0].startswith("cloudnoise: error:"):
        return "refused"
    return f"exit {proc.returncode}, {len(err)} lines"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mutants", type=int, default=60, help="damaged copies per kind of input")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds before a run counts as a hang")
    ap.add_argument("--keep", type=Path, help="folder for the mutants (default: a temporary one)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    tmp = tempfile.TemporaryDirectory(prefix="cn-hostile-")
    work = args.keep or Path(tmp.name)
    work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "XDG_CACHE_HOME": str(work / "cache")}  # crash reports land here, not in ~/.cache
    defects: list[str] = []
    started = time.monotonic()
    print(f"{'input':16} {'mutants':>7} {'accepted':>8} {'refused':>8} {'defects':>8}  slowest")
    for kind, (seed, argv) in seeds(work).items():
        data = seed.read_bytes()
        counts: Counter[str] = Counter()
        slowest = 0.0
        for k in range(args.mutants):
            how, damaged = mutate(data, rng)
            path = work / f"{kind.replace(' ', '-')}-{k:04d}{seed.suffix}"
            if path.is_dir():
                path.rmdir()
            elif path.exists():
                path.unlink()
            if damaged is None:
                path.mkdir()
            else:
                path.write_bytes(damaged)
            cmd = [sys.executable, "-m", "cloudnoise", *[str(path) if a == "FILE" else a for a in argv]]
            t0 = time.monotonic()
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=args.timeout,
                                      env=env, stdin=subprocess.DEVNULL)
            except subprocess.TimeoutExpired:
                proc = None
            slowest = max(slowest, time.monotonic() - t0)
            verdict = classify(proc)
            counts["accepted" if verdict == "accepted" else "refused" if verdict == "refused" else "defect"] += 1
            if verdict not in ("accepted", "refused"):
                last = proc.stderr.strip().splitlines()[-1:] if proc is not None else ["(no output)"]
                defects.append(f"{kind} {how} {path}: {verdict}: {last[0][:200] if last else ''}")
        print(f"{kind:16} {args.mutants:7d} {counts['accepted']:8d} {counts['refused']:8d} {counts['defect']:8d}  "
              f"{slowest:.1f} s")
    print(f"# {len(defects)} defects in {time.monotonic() - started:.0f} s (target: 0); seed {args.seed}")
    for d in defects:
        print("  " + d)
    if args.keep is None and defects:
        print("# rerun with --keep DIR to keep the files that caused them")


if __name__ == "__main__":
    main()
