"""Instructions the engine executes per repetition, counted by valgrind: a figure that
does not move with the machine's load.

    python bench/bench_instructions.py                    # the three noise variants
    python bench/bench_instructions.py --variants both --reps 3
    python bench/bench_instructions.py --ring          # the paper's ring, specialised and general loop

`--ring`: instead, the paper's 1,024-node 512 MiB ring (the authors' pipelinedring, 512
KiB segments, every message a rendezvous) under network noise with the built-in Daint
profile across racks, per repetition and per message, in the specialised exchange loop
(what `simulate` runs) and forced through the general loop (`_engine.run(general=True)`).
valgrind 3.19 crashes (SIGSEGV, in the Python process, before the engine runs) on some
runs of this case started from this script, more often with its branch and cache model
on (--branch-sim=yes --cache-sim=yes; docs/explanation/engine.md gives that model's
figures from a one-repetition run started by hand). The script then stops with
valgrind's message: run it again.

On a shared 2-core VM wall-clock figures move by up to 2x from one day to the next with
the same build, so an engine change's effect is hard to see in seconds. An instruction
count is the same on every run of one build, and tells whether the work per event went
down. It does not see cache misses or how long a chain of dependent operations is (a
draw's chain of conversions, not its instruction count, is what a message waits on: a
change can save 1% of the instructions and 5% of the wall time, or none of the
instructions and 7%), so confirm a change with wall-clock ratios too (paired runs of
both builds taken in turn).

Case: bench_noise.py's first, one thread: the 16384-rank 16 B dissemination with its
noise (azure-hpc's latency and bandwidth models from one calibration, written out
there) and a periodic OS noise trace of 1000 detours/s of 5 us (229,376 messages
per repetition). Each variant runs under
`valgrind --tool=callgrind --toggle-collect='cloudnoise::Engine::run*'` twice, with 1
and with 1 + --reps repetitions: only the engine's runs are counted, so Python's
start-up, imports and garbage collector (whose counts move by ~3% between runs of
one build) stay out, and the difference over --reps leaves out the first
repetition's buffer growth. The module must keep its symbols (CMakeLists.txt builds
it with NOSTRIP).

Printed per variant: instructions per repetition and per message, beside REFERENCE,
a reference Release build's counts (no profile-guided optimisation) taken the same
way, and their ratio: below 1, this build executes fewer instructions per repetition.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

MESSAGES = 16384 * 14  # per repetition: 14 rounds, one message per rank each
# A reference Release build's (2b96a26, no profile-guided optimisation) instructions per
# repetition of each variant, counted as here.
REFERENCE = {"both": 195.8e6, "os": 170.9e6, "none": 164.6e6}

CASE = """
import sys
sys.path.insert(0, sys.argv[3])
from bench_noise import noise_case  # the same parameters and noise as bench_noise.py
from cloudnoise import simulate
from cloudnoise.schedules.patterns import CollectiveSpec, generate
reps, variant = int(sys.argv[1]), sys.argv[2]
params, noise = noise_case()
sched = generate(CollectiveSpec(pattern="dissemination", ranks=16384, size=16))
simulate(sched, params=params, noise=noise, variant=variant, reps=reps, seed=1, threads=1, ready_order="loggopsim")
"""


RING_CASE = """
import sys
from cloudnoise import _engine
from cloudnoise.schedules.patterns import CollectiveSpec, generate
from cloudnoise.simulation.setup import load_system, resolve_noise, resolve_params
reps, loop = int(sys.argv[1]), sys.argv[2]
system = load_system("daint").at("different-racks")
sched = generate(CollectiveSpec("pipelinedring", 1024, 512 << 20, segmentsize="size/ranks", schedgen="paper"))
noise = resolve_noise(system, 0).engine_model("network")
out = _engine.run(sched, resolve_params(system, {}).to_engine(), noise, seed=1, count=reps, threads=1,
                  program_order=True, general=loop == "general")
assert out["specialised"] == (0 if loop == "general" else reps)
"""
RING_MESSAGES = 1024 * 1024  # messages per repetition of the paper's 1,024-node ring


def count(script: Path, reps: int, arg: str, work: Path) -> int:
    """Instructions of the engine's runs in one whole run of the case under callgrind."""
    out = work / f"callgrind.{reps}"
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
         "--toggle-collect=cloudnoise::Engine::run*",
         sys.executable, str(script), str(reps), arg, str(Path(__file__).resolve().parent)],
        capture_output=True, text=True)
    found = re.search(r"Collected\s*:\s*(\d+)", proc.stderr)
    if proc.returncode != 0 or not found:
        sys.exit(f"valgrind run failed (exit {proc.returncode}): {proc.stderr.strip()[-300:]}")
    if int(found.group(1)) == 0:
        sys.exit("valgrind counted no engine instructions: the installed module has no symbols "
                 "(build it from this repository's CMakeLists.txt, which keeps them)")
    return int(found.group(1))


def ring(reps: int, work: Path) -> None:
    """The paper's ring's instructions per repetition (the difference of 1 + reps and 1
    repetitions), in the specialised exchange loop and forced through the general loop."""
    script = work / "ring.py"
    script.write_text(RING_CASE)
    print(f"1,024-node 512 MiB paper ring (the authors' pipelinedring), Daint across racks (built-in profile), "
          f"network noise, 1 thread; {reps} repetitions counted")
    counts = {}
    for loop in ("specialised", "general"):
        per_rep = (count(script, 1 + reps, loop, work) - count(script, 1, loop, work)) / reps
        counts[loop] = per_rep
        print(f"  {loop:11s} loop: {per_rep / 1e6:7.1f} M instructions/repetition, "
              f"{per_rep / RING_MESSAGES:5.0f} per message")
    print(f"  specialised / general: {counts['specialised'] / counts['general']:.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", default="both,os,none", help="noise variants, comma-separated")
    ap.add_argument("--reps", type=int, default=2, help="repetitions counted beyond the first")
    ap.add_argument("--ring", action="store_true",
                    help="count the paper's 1,024-node ring instead, in the specialised and the general loop")
    args = ap.parse_args()
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    if bad := [v for v in variants if v not in REFERENCE]:
        sys.exit(f"unknown variant {bad[0]!r}: choose from {', '.join(REFERENCE)}")
    if args.reps < 1:
        sys.exit("--reps must be at least 1")
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (Debian: apt-get install valgrind)")
    with tempfile.TemporaryDirectory(prefix="cn-bench-ir-") as tmp:
        work = Path(tmp)
        if args.ring:
            ring(args.reps, work)
            return
        script = work / "case.py"
        script.write_text(CASE)
        print(f"16384-rank 16 B dissemination, azure-hpc noise, 1 thread; {args.reps} repetitions counted")
        for variant in variants:
            per_rep = (count(script, 1 + args.reps, variant, work) - count(script, 1, variant, work)) / args.reps
            ref = REFERENCE[variant]
            print(f"  {variant:5s} {per_rep / 1e6:7.1f} M instructions/repetition, {per_rep / MESSAGES:5.0f}/message"
                  f"  (reference: {ref / 1e6:.1f} M, {ref / MESSAGES:.0f}/message; ratio {per_rep / ref:.3f})")


if __name__ == "__main__":
    main()
