"""Fuzzing every reader of input from someone else, for millions of inputs.

    python bench/bench_fuzz.py                         # every target, 100,000 inputs each
    python bench/bench_fuzz.py --runs 1000000 --only goal,os-noise-trace
    python bench/bench_fuzz.py --list

Two kinds of targets, each run in its own process, two at a time (the cores):

* The C++ readers (src/engine/fuzz/*_fuzz.cpp: GOAL text through the reader
  and the engine under noise; OS-noise traces and the activities charged to
  them), libFuzzer with AddressSanitizer and UBSan, built here by clang
  (`-DCLOUDNOISE_FUZZERS=ON` in build/fuzz). Needs clang with libFuzzer
  (Debian: `apt install clang`); without it they are skipped, with a note.
* The Python readers (tests/hostile/fuzz_targets.py: profiles, samples files,
  OS-noise traces, command-line values and noise specs, app TOML, price CSV,
  campaign metadata, sweep.json, liballprof, recorded and OTF2 traces), atheris,
  coverage-guided (`pip install 'cloudnoise[fuzz]'`). The test suite runs the
  same targets under hypothesis for a bounded number of inputs.

A defect is an input whose outcome is neither "read" nor an expected one-line
error: an unexpected exception, a sanitizer report, a crash, a hang (over
--timeout seconds) or memory beyond 4 GiB. Each is saved under --out with the
fuzzer's reproducer. Target: >= 1 M inputs over every reader,
0 crashes.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _paths() -> list[str]:
    """The test helpers, and the source tree when it holds a built engine (a checkout
    with `PYTHONPATH=src`); otherwise the installed cloudnoise is used."""
    src = REPO / "src"
    built = any((src / "cloudnoise").glob("_engine*.so"))
    return [str(HOSTILE), str(REPO / "tests"), *([str(src)] if built else [])]
HOSTILE = REPO / "tests" / "hostile"
CPP_TARGETS = {"goal-reader-cpp": "goal_reader_fuzz", "os-noise-trace-cpp": "os_noise_trace_fuzz"}


@dataclass
class Outcome:
    target: str
    kind: str
    runs: int
    seconds: float
    defects: list[str]
    note: str = ""


# -- the atheris child: one Python target -------------------------------------------


def atheris_child(name: str, runs: int, out: Path, timeout_s: int) -> None:
    """Runs one Python target under atheris in this process (libFuzzer's command line)."""
    import atheris

    sys.path[:0] = _paths()
    import importlib

    with atheris.instrument_imports(include=["cloudnoise", "fuzz_targets"]):
        import fuzz_targets

        for module in fuzz_targets.READER_MODULES:
            importlib.import_module(module)

    target = {**fuzz_targets.TARGETS, **fuzz_targets.BENCH_ONLY}[name]
    work = out / f"work-{name}"

    class AtherisChoices:
        def __init__(self, data: bytes) -> None:
            self.fdp = atheris.FuzzedDataProvider(data)

        def integer(self, low: int, high: int) -> int:
            return self.fdp.ConsumeIntInRange(low, high)

        def raw(self, max_size: int) -> bytes:
            return self.fdp.ConsumeBytes(self.fdp.ConsumeIntInRange(0, max_size))

    def one(data: bytes) -> None:
        target.run(AtherisChoices(data), work)  # raises Defect (or worse) on a defect

    atheris.Setup([sys.argv[0], f"-runs={runs}", f"-timeout={timeout_s}", "-rss_limit_mb=4096",
                   f"-artifact_prefix={out}/{name}-", "-print_final_stats=1"], one)
    atheris.Fuzz()


# -- the parent ------------------------------------------------------------------


def _libfuzzer_summary(text: str) -> tuple[int, list[str]]:
    done = re.findall(r"Done (\d+) runs", text)
    runs = int(done[-1]) if done else max((int(x) for x in re.findall(r"#(\d+)\s", text)), default=0)
    defects = re.findall(r"Test unit written to (\S+)", text)
    return runs, defects


def build_cpp(build: Path) -> str | None:
    """Builds the libFuzzer targets; returns a note instead when clang cannot."""
    clang = shutil.which("clang++") or shutil.which("clang++-14") or shutil.which("clang++-15")
    if clang is None:
        return "clang++ not found (apt install clang): C++ targets skipped"
    cc = clang.replace("clang++", "clang")
    cfg = subprocess.run(["cmake", "-S", str(REPO), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Debug",
                          "-DCLOUDNOISE_FUZZERS=ON", f"-DCMAKE_C_COMPILER={cc}", f"-DCMAKE_CXX_COMPILER={clang}",
                          f"-DPython_EXECUTABLE={sys.executable}"], capture_output=True, text=True)
    if cfg.returncode != 0:
        return f"cmake failed: {cfg.stderr.strip().splitlines()[-1:]}"
    made = subprocess.run(["cmake", "--build", str(build), "-j2", "--target", *CPP_TARGETS.values()],
                          capture_output=True, text=True)
    if made.returncode != 0:
        tail = (made.stdout + made.stderr).strip().splitlines()[-3:]
        return f"build failed (libFuzzer missing?): {' | '.join(tail)}"
    return None


def cpp_seeds(corpus: Path, name: str) -> Path:
    corpus.mkdir(parents=True, exist_ok=True)
    if name == "goal-reader-cpp" and not any(corpus.iterdir()):
        sys.path[:0] = _paths()
        import fuzz_targets

        for i, text in enumerate(fuzz_targets.GOAL_SEEDS):
            (corpus / f"seed{i}.goal").write_text(text)
    return corpus


def run_cpp(name: str, build: Path, runs: int, out: Path, timeout_s: int) -> Outcome:
    corpus = cpp_seeds(out / "corpus" / name, name)
    t0 = time.monotonic()
    proc = subprocess.run([str(build / CPP_TARGETS[name]), f"-runs={runs}", f"-timeout={timeout_s}",
                           "-rss_limit_mb=4096", "-max_len=16384", f"-artifact_prefix={out}/{name}-", str(corpus)],
                          capture_output=True, text=True, env={**os.environ, "ASAN_OPTIONS": "detect_leaks=1"})
    got, defects = _libfuzzer_summary(proc.stderr)
    if proc.returncode != 0 and not defects:
        defects = [f"exit {proc.returncode}: {proc.stderr.strip().splitlines()[-1:]}"]
    return Outcome(name, "C++ libFuzzer+ASan+UBSan", got, time.monotonic() - t0, defects)


def run_python(name: str, runs: int, out: Path, timeout_s: int) -> Outcome:
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, __file__, "--atheris-child", name, "--runs", str(runs), "--out", str(out),
                           "--timeout", str(timeout_s)], capture_output=True, text=True)
    got, defects = _libfuzzer_summary(proc.stderr)
    if proc.returncode != 0 and not defects:
        defects = [f"exit {proc.returncode}: {proc.stderr.strip().splitlines()[-3:]}"]
    (out / f"{name}.log").write_text(proc.stderr[-200_000:])
    return Outcome(name, "Python atheris", got, time.monotonic() - t0, defects)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=100_000, help="inputs per target")
    ap.add_argument("--only", default="", help="comma-separated targets (see --list)")
    ap.add_argument("--out", type=Path, default=Path("fuzz-out"), help="folder for logs, corpora and defects")
    ap.add_argument("--timeout", type=int, default=60, help="seconds one input may take before it is a hang")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--atheris-child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.out = args.out.resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.atheris_child:
        atheris_child(args.atheris_child, args.runs, args.out, args.timeout)
        return

    sys.path[:0] = _paths()
    import fuzz_targets

    python_targets = {n: t.about for n, t in {**fuzz_targets.TARGETS, **fuzz_targets.BENCH_ONLY}.items()}
    everything = {**{n: "C++ " + n for n in CPP_TARGETS}, **python_targets}
    if args.list:
        for n, about in everything.items():
            print(f"{n:22} {about}")
        return
    chosen = [n for n in (args.only.split(",") if args.only else everything) if n]
    unknown = [n for n in chosen if n not in everything]
    if unknown:
        sys.exit(f"unknown target(s) {unknown}; see --list")

    outcomes: list[Outcome] = []
    if any(n in CPP_TARGETS for n in chosen):
        note = build_cpp(REPO / "build" / "fuzz")
        if note:
            print(note)
            chosen = [n for n in chosen if n not in CPP_TARGETS]
    try:
        import atheris  # noqa: F401
    except ImportError:
        print("atheris not installed (pip install 'cloudnoise[fuzz]'): Python targets skipped")
        chosen = [n for n in chosen if n in CPP_TARGETS]

    t0 = time.monotonic()
    with ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run_cpp, n, REPO / "build" / "fuzz", args.runs, args.out, args.timeout)
                   if n in CPP_TARGETS else pool.submit(run_python, n, args.runs, args.out, args.timeout)
                   for n in chosen]
        for f in futures:
            o = f.result()
            outcomes.append(o)
            print(f"{o.target:22} {o.kind:26} {o.runs:>11,} inputs {o.seconds:8.1f} s "
                  f"{o.runs / max(o.seconds, 1e-9):>9,.0f}/s  defects {len(o.defects)}", flush=True)
            for d in o.defects:
                print(f"    defect: {d}")
    total = sum(o.runs for o in outcomes)
    defects = sum(len(o.defects) for o in outcomes)
    print(f"\n{len(outcomes)} targets, {total:,} inputs in {time.monotonic() - t0:.0f} s, {defects} defects "
          f"(reference: >= 1,000,000 inputs over every reader, 0 crashes)")


if __name__ == "__main__":
    main()
