"""`cloudnoise schedule generate --schedgen paper` beside the paper authors' own Schedgen, byte for byte.

    python bench/bench_vs_authors_schedgen.py --build ARTIFACT/simulations/schedgen   # builds theirs in a temp folder
    python bench/bench_vs_authors_schedgen.py --schedgen DIR                           # DIR holds their built `schedgen`
    python bench/bench_vs_authors_schedgen.py --schedgen DIR --ranks 2,3,4,7,16,64 --sizes 16B,16KiB

Their Schedgen is the modified one of the paper's artifact
(github.com/DanieleDeSensi/cloud_noise, `simulations/schedgen`); it is not part
of cloudnoise and nothing of it is kept here: --build copies its sources to a
temporary folder and runs `make` there (g++; its generated command-line parser
is in the folder).

For every pattern the authors' Schedgen has, every rank count and size, both
write the GOAL file (theirs: `schedgen -p PATTERN -s P -d SIZE [--segmentsize
SIZE/P]`; ours: the command a user runs, `cloudnoise schedule generate
--schedgen paper ... --segmentsize size/ranks`) and the two files are
compared byte for byte. The pipelined rings run with one segment per rank and
are skipped where SIZE < P, as the authors' simulate.py and convert_all.sh do.
Skipped as too large to write (stated in the output): the rings at 16,384 ranks
(16,384 segments: 268 million messages, ~23 GB of text at any size the
authors' scripts allow) and linear_alltoall at 16,384 ranks (537 million
messages). Prints one line per case and a summary; exits 1 if any case differs.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PATTERNS = ("binomialtreereduce", "binarytreebcast", "binomialtreebcast", "nwaydissemination", "pipelinedring",
            "pipelinedringdep", "doublering", "gather", "scatter", "linbarrier", "dissemination", "linear_alltoall")
RINGS = ("pipelinedring", "pipelinedringdep")
RANKS = "2,3,4,7,16,64,1024,16384"
SIZES = "16B,16KiB,16MiB,512MiB"
TOO_LARGE = {("pipelinedring", 16384), ("pipelinedringdep", 16384), ("linear_alltoall", 16384)}


def parse_size(text: str) -> int:
    units = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}
    for unit in sorted(units, key=len, reverse=True):
        if text.endswith(unit):
            return int(text[: -len(unit)]) * units[unit]
    return int(text)


def build(source: Path, into: Path) -> Path:
    """Their Schedgen built from `source` in a copy under `into`."""
    work = into / "schedgen-src"
    shutil.copytree(source, work)
    out = subprocess.run(["make", "-C", str(work), "all"], capture_output=True, text=True)
    binary = work / "schedgen"
    if out.returncode != 0 or not binary.exists():
        sys.exit(f"building their Schedgen in {work} failed: {(out.stdout + out.stderr).strip()[-400:]}")
    return binary


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--schedgen", type=Path, help="folder holding their built schedgen")
    where.add_argument("--build", type=Path, help="their simulations/schedgen source folder, built in a temp folder")
    ap.add_argument("--patterns", default=",".join(PATTERNS))
    ap.add_argument("--ranks", default=RANKS)
    ap.add_argument("--sizes", default=SIZES)
    ap.add_argument("--cloudnoise", default=None, help="the cloudnoise command [default: python -m cloudnoise]")
    a = ap.parse_args()
    ours_cmd = a.cloudnoise.split() if a.cloudnoise else [sys.executable, "-m", "cloudnoise"]
    with tempfile.TemporaryDirectory(prefix="cn-schedgen-") as tmp_name:
        tmp = Path(tmp_name)
        theirs_bin = build(a.build, tmp) if a.build else (a.schedgen / "schedgen").resolve()
        if not theirs_bin.exists():
            sys.exit(f"{theirs_bin}: no such file (build their Schedgen, or pass --build SOURCE)")
        same = differ = skipped = 0
        t0 = time.monotonic()
        for pattern in a.patterns.split(","):
            for ranks in (int(r) for r in a.ranks.split(",")):
                for size_text in a.sizes.split(","):
                    size = parse_size(size_text)
                    case = f"{pattern:<18} P={ranks:<6} {size_text:>7}"
                    if (pattern, ranks) in TOO_LARGE:
                        print(f"{case}  skipped: too large to write (see the docstring)")
                        skipped += 1
                        continue
                    seg: list[str] = []
                    ours_seg: list[str] = []
                    if pattern in RINGS:
                        if size < ranks:
                            print(f"{case}  skipped: SIZE < P (their scripts skip it)")
                            skipped += 1
                            continue
                        seg = ["--segmentsize", str(size // ranks)]
                        ours_seg = ["--segmentsize", "size/ranks"]
                    theirs, ours = tmp / "theirs.goal", tmp / "ours.goal"
                    out = subprocess.run([str(theirs_bin), "-p", pattern, "-s", str(ranks), "-d", str(size), *seg,
                                          "-o", str(theirs)], capture_output=True, text=True)
                    if out.returncode != 0:
                        sys.exit(f"{case}: their Schedgen failed: {(out.stdout + out.stderr).strip()[-300:]}")
                    out = subprocess.run([*ours_cmd, "schedule", "generate", "--schedgen", "paper", "--pattern",
                                          pattern, "--ranks", str(ranks), "--size", str(size), *ours_seg,
                                          "-o", str(ours)], capture_output=True, text=True)
                    if out.returncode != 0:
                        sys.exit(f"{case}: cloudnoise failed: {(out.stdout + out.stderr).strip()[-300:]}")
                    mb = theirs.stat().st_size / 1e6
                    if sha256(theirs) == sha256(ours):
                        same += 1
                        print(f"{case}  identical ({mb:,.1f} MB)")
                    else:
                        differ += 1
                        print(f"{case}  DIFFERS (theirs {mb:,.1f} MB, ours {ours.stat().st_size / 1e6:,.1f} MB)")
                    theirs.unlink()
                    ours.unlink()
        print(f"\n{same} identical, {differ} differ, {skipped} skipped ({time.monotonic() - t0:.0f} s)")
        sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
