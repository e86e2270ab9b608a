"""Find the MPI that the probes are built with and launched by.

Order of preference, because only the vendor MPI reaches EFA, InfiniBand or
Slingshot:

1. ``--mpicc PATH`` (and ``--mpiexec PATH``) given by the user;
2. ``mpicc`` / ``mpiexec`` on ``PATH``;
3. the ``mpich`` wheel from PyPI (``pip install 'cloudnoise[mpi]'``), which
   puts ``mpicc`` and ``mpiexec`` in the environment's ``bin`` directory
   (it lists them in its RECORD as ``../../../bin/mpicc``), so a fresh machine
   measures itself without system packages.

Setting ``CLOUDNOISE_IGNORE_PIP_MPICH=1`` skips step 3 (to force a system
MPI, and for tests of the no-MPI path). No MPI at all is a one-line :class:`CloudnoiseError` saying what to install.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sysconfig
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

    def as_dict(self) -> dict[str, str | None]:
        return {
            "mpicc": str(self.mpicc),
            "mpiexec": str(self.mpiexec) if self.mpiexec else None,
            "flavor": self.flavor,
            "source": self.source,
            "version": self.version,
        }


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


def _flavor(text: str) -> str:
    lowered = text.lower()
    if "open mpi" in lowered or "openrte" in lowered or "open-rte" in lowered:
        return "openmpi"
    if "intel" in lowered:
        return "intel"
    if "hydra" in lowered or "mpich" in lowered:
        return "mpich"
    return "unknown"


def _describe(mpicc: Path, mpiexec: Path | None, source: str) -> MpiInstallation:
    text = run_quiet([str(mpiexec), "--version"]) if mpiexec else ""
    if not text.strip():
        text = run_quiet([str(mpicc), "-show"]) + run_quiet([str(mpicc), "--showme"])
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    versioned = [ln for ln in lines if "version" in ln.lower() and any(c.isdigit() for c in ln)]
    version = (versioned or lines or ["unknown"])[0]
    flavor = _flavor(text)
    if flavor == "unknown":
        flavor = _flavor(run_quiet([str(mpicc), "-show"]) + " " + str(mpicc))
    return MpiInstallation(mpicc, mpiexec, flavor, source, version)


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
        return _describe(cc, exe, "--mpicc")
    on_path = shutil.which("mpicc")
    if on_path:
        # the launcher of the same MPI: next to mpicc, else the first on PATH
        sibling = Path(on_path).parent / "mpiexec"
        exe_path = mpiexec or (str(sibling) if os.access(sibling, os.X_OK) else shutil.which("mpiexec"))
        exe = _executable(exe_path, "--mpiexec") if exe_path else None
        return _describe(Path(on_path), exe, "PATH")
    bindir = _wheel_bin_dir()
    if bindir:
        exe = _executable(mpiexec, "--mpiexec") if mpiexec else bindir / "mpiexec"
        return _describe(bindir / "mpicc", exe if exe.exists() else None, "pip:mpich")
    raise CloudnoiseError(NO_MPI, EXIT_RUNTIME)
