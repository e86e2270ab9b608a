"""Find the MPI that the probes are built with and launched by.

Order of preference, because only the vendor MPI reaches EFA, InfiniBand or
Slingshot:

1. ``--mpicc PATH`` (and ``--mpiexec PATH``) given by the user;
2. ``mpicc`` / ``mpiexec`` on ``PATH``, if that ``mpicc`` compiles and links
   an MPI program (a system package without its headers, such as
   ``openmpi-bin`` without ``libopenmpi-dev``, has an ``mpicc`` that cannot);
3. the ``mpich`` wheel from PyPI (``pip install 'cloudnoise[mpi]'``), which
   puts ``mpicc`` and ``mpiexec`` in the environment's ``bin`` directory
   (it lists them in its RECORD as ``../../../bin/mpicc``), so a fresh machine
   measures itself without system packages.

Every choice carries its reason (`MpiInstallation.reason`), which the
commands print and the campaign stores. An ``mpicc`` on PATH that cannot
compile is passed over for the wheel with a note saying so; without the
wheel it is a one-line error naming the missing package. Setting
``CLOUDNOISE_IGNORE_PIP_MPICH=1`` skips step 3 (to force a system MPI, and
for tests of the no-MPI path). No MPI at all is a one-line
:class:`CloudnoiseError` saying what to install.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sysconfig
import tempfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from cloudnoise.errors import EXIT_RUNTIME, CloudnoiseError

NO_MPI = (
    "no MPI found: install one with pip install 'cloudnoise[mpi]' "
    "(or a system MPI), or pass --mpicc PATH"
)


@dataclass(frozen=True)
class MpiInstallation:
    """An MPI compiler wrapper and its launcher, and what kind of MPI they are."""

    mpicc: Path
    mpiexec: Path | None
    flavor: str  # "mpich", "openmpi", "intel" or "unknown": decides launcher flags
    source: str  # where it was found: "--mpicc", "PATH" or "pip:mpich"
    version: str  # first line of the launcher's or wrapper's version output
    reason: str = ""  # why this one, in words
    passed_over: str | None = None  # an MPI not taken, and why (one line for the user)

    def as_dict(self) -> dict[str, str | None]:
        return {
            "mpicc": str(self.mpicc),
            "mpiexec": str(self.mpiexec) if self.mpiexec else None,
            "flavor": self.flavor,
            "source": self.source,
            "version": self.version,
            "reason": self.reason,
            **({"passed_over": self.passed_over} if self.passed_over else {}),
        }

    def summary(self) -> str:
        """One line: which MPI, where, and why."""
        return f"MPI: {FLAVOR_NAMES.get(self.flavor, self.flavor)} ({self.version}), {self.mpicc}: {self.reason}"


def cache_dir() -> Path:
    """The user cache for compiled probes."""
    if os.environ.get("CLOUDNOISE_CACHE_DIR"):
        return Path(os.environ["CLOUDNOISE_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cloudnoise" / "probes"


def run_quiet(cmd: list[str], timeout: float = 15.0) -> str:
    """stdout+stderr of a short helper command, or "" when it cannot run."""
    try:
        out = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return (out.stdout or "") + (out.stderr or "")


def _wheel_bin_dir() -> Path | None:
    """The directory where the installed ``mpich`` wheel put ``mpicc``."""
    if os.environ.get("CLOUDNOISE_IGNORE_PIP_MPICH"):
        return None
    try:
        dist = metadata.distribution("mpich")
    except metadata.PackageNotFoundError:
        return None
    for entry in dist.files or []:
        if entry.name == "mpicc" and entry.parent.name == "bin":
            path = Path(dist.locate_file(entry)).resolve()
            if path.exists():
                return path.parent
    scripts = Path(sysconfig.get_path("scripts"))
    return scripts if (scripts / "mpicc").exists() else None


FLAVOR_NAMES = {"mpich": "MPICH", "openmpi": "Open MPI", "intel": "Intel MPI", "unknown": "an unknown MPI"}
# The distribution package that holds each flavour's headers (Debian/Ubuntu; RPM names in the hint too).
HEADERS_PACKAGE = {"openmpi": "libopenmpi-dev (openmpi-devel on RPM systems)",
                   "mpich": "libmpich-dev (mpich-devel on RPM systems)"}
REASON_USER = "given with --mpicc"
REASON_PATH = ("the first mpicc on PATH (a system MPI is preferred: it reaches the fast network; "
               "--mpicc chooses another)")
REASON_WHEEL = "the MPICH that pip installed in this environment (no mpicc on PATH)"

_PROGRAM = "#include <mpi.h>\nint main(int argc, char **argv) { MPI_Init(&argc, &argv); MPI_Finalize(); return 0; }\n"


def compile_problem(mpicc: Path) -> str | None:
    """Why `mpicc` cannot compile and link an MPI program (its first error line),
    or None when it can. A success is remembered in the probe cache, keyed by
    the wrapper and what it runs, so the check costs a compile once."""
    show = run_quiet([str(mpicc), "-show"]) or run_quiet([str(mpicc), "--showme"])
    key = hashlib.sha256(f"{mpicc.resolve()}\n{show}".encode()).hexdigest()[:16]
    marker = cache_dir() / f"mpicc-ok-{key}"
    if marker.exists():
        return None
    with tempfile.TemporaryDirectory(prefix="cloudnoise-mpicc-") as tmp:
        source = Path(tmp) / "hello.c"
        source.write_text(_PROGRAM)
        try:
            out = subprocess.run([str(mpicc), str(source), "-o", str(Path(tmp) / "hello")], capture_output=True,
                                 text=True, timeout=120, stdin=subprocess.DEVNULL, cwd=tmp)
        except (OSError, subprocess.SubprocessError) as err:
            return f"it does not run: {err}"
    if out.returncode != 0:
        lines = [ln.strip() for ln in (out.stderr + out.stdout).splitlines() if ln.strip()]
        first = next((ln for ln in lines if "error" in ln.lower()), lines[0] if lines else f"exit status {out.returncode}")
        return first.replace(str(source), "hello.c")
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    except OSError:
        pass  # a read-only cache: the check runs again next time
    return None


def _flavor(text: str) -> str:
    lowered = text.lower()
    if "open mpi" in lowered or "openrte" in lowered or "open-rte" in lowered:
        return "openmpi"
    if "intel" in lowered:
        return "intel"
    if "hydra" in lowered or "mpich" in lowered:
        return "mpich"
    return "unknown"


def _describe(mpicc: Path, mpiexec: Path | None, source: str, reason: str = "") -> MpiInstallation:
    text = run_quiet([str(mpiexec), "--version"]) if mpiexec else ""
    if not text.strip():
        text = run_quiet([str(mpicc), "-show"]) + run_quiet([str(mpicc), "--showme"])
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    versioned = [ln for ln in lines if "version" in ln.lower() and any(c.isdigit() for c in ln)]
    version = (versioned or lines or ["unknown"])[0]
    flavor = _flavor(text)
    if flavor == "unknown":
        flavor = _flavor(run_quiet([str(mpicc), "-show"]) + " " + str(mpicc))
    return MpiInstallation(mpicc, mpiexec, flavor, source, version, reason)


def _executable(path: str, what: str) -> Path:
    found = shutil.which(path)
    if not found:
        raise CloudnoiseError(f"{what} {path!r} is not an executable; check the path", EXIT_RUNTIME)
    return Path(found)


def find_mpi(mpicc: str | None = None, mpiexec: str | None = None) -> MpiInstallation:
    """The MPI to use, by the preference order in the module docstring."""
    if mpicc:
        cc = _executable(mpicc, "--mpicc")
        if mpiexec:
            exe: Path | None = _executable(mpiexec, "--mpiexec")
        else:
            sibling = cc.parent / "mpiexec"
            exe = sibling if os.access(sibling, os.X_OK) else None
            if exe is None and shutil.which("mpiexec"):
                exe = Path(shutil.which("mpiexec"))  # type: ignore[arg-type]
        return _describe(cc, exe, "--mpicc", REASON_USER)
    on_path = shutil.which("mpicc")
    bindir = _wheel_bin_dir()
    if on_path:
        # the launcher of the same MPI: next to mpicc, else the first on PATH
        sibling = Path(on_path).parent / "mpiexec"
        exe_path = mpiexec or (str(sibling) if os.access(sibling, os.X_OK) else shutil.which("mpiexec"))
        exe = _executable(exe_path, "--mpiexec") if exe_path else None
        system = _describe(Path(on_path), exe, "PATH", REASON_PATH)
        problem = compile_problem(system.mpicc)
        if problem is None:
            return system
        broken = (f"the mpicc on PATH ({on_path}, {FLAVOR_NAMES.get(system.flavor, system.flavor)}) cannot compile "
                  f"an MPI program ({problem})")
        if bindir is None:
            headers = HEADERS_PACKAGE.get(system.flavor, "the MPI's development package")
            raise CloudnoiseError(f"{broken}: install {headers}, or pip install 'cloudnoise[mpi]' for MPICH in this "
                                  "environment, or pass --mpicc PATH", EXIT_RUNTIME)
        wheel_exe = _executable(mpiexec, "--mpiexec") if mpiexec else bindir / "mpiexec"
        chosen = _describe(bindir / "mpicc", wheel_exe if wheel_exe.exists() else None, "pip:mpich",
                           f"the MPICH that pip installed in this environment, because {broken}")
        return MpiInstallation(**{**chosen.__dict__, "passed_over": f"{broken}; using the MPICH in this environment "
                                                                    f"({bindir / 'mpicc'}) instead"})
    if bindir:
        exe = _executable(mpiexec, "--mpiexec") if mpiexec else bindir / "mpiexec"
        return _describe(bindir / "mpicc", exe if exe.exists() else None, "pip:mpich", REASON_WHEEL)
    raise CloudnoiseError(NO_MPI, EXIT_RUNTIME)
