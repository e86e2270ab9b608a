"""Every command of the tutorials runs, in the order printed, at a small size.

Each `cloudnoise` command in a tutorial's ```sh blocks is run as printed, with the small-size
options of `SMALL` appended (click takes the last value of an option, so an appended
`--reps 5` replaces the page's `--reps 400`). A line that is not a `cloudnoise` command is
either run by the test in its own way (`sbatch SCRIPT`: the script with bash, Slurm's `srun`
replaced by a stand-in that starts the ranks with this machine's MPI) or is setup the test
environment already has, each listed in `SETUP` with the reason: no line is skipped silently.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from measure_support import env, mpi_or_skip

ROOT = Path(__file__).resolve().parents[2]
TUTORIALS = ROOT / "docs" / "tutorials"
SHARED = Path(os.environ.get("CLOUDNOISE_SHARED", ROOT.parent / "shared"))

# Options appended to a command, by its first words: seconds instead of minutes.
SMALL: dict[tuple[str, ...], list[str]] = {
    ("measure", "loggp"): ["--sizes", "1,1KiB,64KiB", "--iterations", "60", "--rounds", "3", "--train", "4"],
    ("measure", "latency-noise"): ["--duration", "1"],
    ("measure", "bandwidth-noise"): ["--duration", "1", "--sizes", "64KiB"],
    ("measure", "os-noise"): ["--duration", "1"],
    ("validate",): ["--reps", "10", "--warmup", "2"],
    ("simulate",): ["--reps", "3"],
    ("sweep",): ["--nodes", "16,64", "--reps", "3", "--in-process"],
    ("advise",): ["--reps", "5", "--in-process"],
    ("trace", "extrapolate"): ["--ranks", "16"],
    ("paper",): ["--reps", "2", "--statement", "fig15-no-os-impact,fig14-azure200-less-latency-noise", "--in-process"],
}
# Sizes that are not an option of their own: 1,024 ranks become 64, the 256-rank GOAL file one
# of 16 ranks (`trace extrapolate --ranks 16` writes it), 100 iterations 2, 16 to 1,024 nodes 16
# and 64 (a GOAL file is advised at its own node count, so --nodes is not appended).
REPLACE = {"--ranks 1024": "--ranks 64", "melt-256.goal.gz": "melt-16.goal.gz", "--iterations 100": "--iterations 2",
           "--nodes 16..1024:4": "--nodes 16,64"}

SETUP = {
    "module load openmpi": "the test uses the MPI cloudnoise finds here",
    "python3 -m venv ~/cloudnoise && ~/cloudnoise/bin/pip install .": "the test runs in the installed package",
    "export PATH=~/cloudnoise/bin:$PATH": "the test runs `python -m cloudnoise`",
    "salloc --nodes=2 --ntasks-per-node=1 --time=00:20:00": "the srun stand-in starts the ranks here",
    "cp /usr/share/lammps/examples/melt/in.melt .": "LAMMPS's input: copied when LAMMPS is installed",
}


def commands(page: Path) -> list[str]:
    """The command lines of a page's ```sh blocks, continuation lines joined, comments dropped."""
    lines: list[str] = []
    for block in re.findall(r"```sh\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
        text = block.replace("\\\n", " ")
        for line in text.splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            if line and not line.startswith("#"):
                lines.append(line)
    return lines


def small(args: list[str]) -> list[str]:
    for n in (2, 1):
        if tuple(args[:n]) in SMALL:
            return args + SMALL[tuple(args[:n])]
    return args


@pytest.fixture(scope="module")
def shims(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`cloudnoise` (this checkout, SMALL appended) and an `srun` that starts the ranks
    with this machine's MPI, first on PATH for the Slurm script."""
    mpi_or_skip()
    bin_dir = tmp_path_factory.mktemp("bin")
    small_py = repr({" ".join(k): v for k, v in SMALL.items()})
    (bin_dir / "cloudnoise").write_text(f"""#!{sys.executable}
import sys
small = {small_py}
args = sys.argv[1:]
for n in (2, 1):
    if " ".join(args[:n]) in small:
        args = args + small[" ".join(args[:n])]
        break
from cloudnoise.cli import main
sys.argv = ["cloudnoise", *args]
main()
""")
    (bin_dir / "srun").write_text(f"""#!{sys.executable}
# srun -n N [--cpu-bind=...] [--ntasks-per-node=K] [-w HOSTS] PROGRAM...: the ranks here.
import os, sys
from cloudnoise.measurement.launcher import LaunchSpec, build_command
from cloudnoise.measurement.mpi import find_mpi
args = sys.argv[1:]
ranks = 1
while args and args[0].startswith("-"):
    opt = args.pop(0)
    if opt == "-n":
        ranks = int(args.pop(0))
    elif opt == "-w":
        args.pop(0)
argv = build_command(find_mpi(), LaunchSpec(launcher="mpiexec"), ranks, args)
os.execvp(argv[0], argv)
""")
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    return bin_dir


def run_page(page: Path, cwd: Path, shims: Path, special: dict[str, object] | None = None) -> list[str]:
    """Runs the page's commands in order in `cwd`; returns the lines it ran."""
    special = special or {}
    environment = env(PATH=f"{shims}{os.pathsep}{os.environ.get('PATH', '')}")
    ran = []
    for line in commands(page):
        for a, b in REPLACE.items():
            line = line.replace(a, b)
        if line in SETUP:
            continue
        if line in special:
            special[line]()  # type: ignore[operator]
            ran.append(line)
            continue
        args = shlex.split(line)
        if args[0] == "sbatch":
            cmd = ["bash", str(ROOT / args[1])]
        else:
            assert args[0] == "cloudnoise", f"{page.name}: `{line}` is neither run by the test nor listed in SETUP"
            cmd = [sys.executable, "-m", "cloudnoise", *small(args[1:])]
        proc = subprocess.run(cmd, cwd=cwd, env=environment, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, f"{page.name}: `{line}` exited {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
        ran.append(line)
    return ran


def test_every_tutorial_is_run_here() -> None:
    assert sorted(p.name for p in TUTORIALS.glob("*.md")) == ["cluster-in-an-hour.md", "paper.md", "which-cloud.md"]


def test_your_cluster_in_an_hour(tmp_path: Path, shims: Path) -> None:
    ran = run_page(TUTORIALS / "cluster-in-an-hour.md", tmp_path, shims)
    assert any(r.startswith("sbatch ") for r in ran) and any(r.startswith("cloudnoise advise") for r in ran)
    campaign = tmp_path / "mycluster"
    for experiment in ("loggp", "latency-noise", "bandwidth-noise", "os-noise"):
        assert (campaign / experiment).is_dir(), f"the Slurm script did not measure {experiment}"
    assert (tmp_path / "mycluster.json").is_file() and (tmp_path / "report" / "report.html").is_file()


def test_which_cloud_for_my_application(tmp_path: Path, shims: Path) -> None:
    trace = SHARED / "traces" / "lammps-melt-4"
    if not trace.is_dir():
        pytest.skip(f"the LAMMPS trace is not here ({trace}; set CLOUDNOISE_SHARED)")
    record = "cloudnoise trace record --out melt -- mpiexec -n 4 lmp -in in.melt -log none"

    def record_or_stand_in() -> None:
        from cloudnoise.measurement.mpi import find_mpi

        mpi = find_mpi()
        environment = env()
        # LAMMPS runs under the MPI it was built with, which need not be the one found here:
        # the same `trace record` on the Jacobi example, then the stored recording of the
        # tutorial's own command (../shared/traces/lammps-melt-4/trace.json says how it was made).
        exe = tmp_path / "jacobi2d"
        subprocess.run([str(mpi.mpicc), "-O2", "-o", str(exe), str(ROOT / "examples" / "trace" / "jacobi2d.c"), "-lm"],
                       check=True, capture_output=True)
        from cloudnoise.measurement.launcher import LaunchSpec, build_command

        launch = build_command(mpi, LaunchSpec(launcher="mpiexec"), 4, [str(exe), "64", "64", "5", "2"])
        proc = subprocess.run([sys.executable, "-m", "cloudnoise", "trace", "record", "--out", "jac", "--", *launch],
                              cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        assert len(list((tmp_path / "jac").glob("rank-*.cntr"))) == 4
        shutil.copytree(trace, tmp_path / "melt")

    ran = run_page(TUTORIALS / "which-cloud.md", tmp_path, shims, {record: record_or_stand_in})
    assert record in ran and any(r.startswith("cloudnoise advise") for r in ran)
    assert (tmp_path / "melt-16.goal.gz").is_file() and (tmp_path / "melt-advice" / "sweep.json").is_file()


def test_the_paper_in_one_command(tmp_path: Path, shims: Path) -> None:
    ran = run_page(TUTORIALS / "paper.md", tmp_path, shims)
    assert ran[0].startswith("cloudnoise paper") and (tmp_path / "paper" / "paper.json").is_file()
    assert (tmp_path / "paper-report" / "report.html").is_file() and (tmp_path / "fig14-report" / "report.html").is_file()
