"""measurement/mpi.py: which MPI is used and why; a system `mpicc` that cannot
compile (Open MPI's wrapper without its headers) gives way to the MPICH wheel
with one line saying so, or stops with a hint naming the missing package."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from cloudnoise.errors import CloudnoiseError
from cloudnoise.measurement import mpi as mpi_module
from cloudnoise.measurement.mpi import find_mpi

from measure_support import run

HEADERLESS_MPICC = """#!/bin/sh
# openmpi-bin without libopenmpi-dev: the wrapper runs, the header is missing
case "$1" in
  --showme|-show) echo "gcc -I/usr/lib/x86_64-linux-gnu/openmpi/include -lmpi"; exit 0;;
esac
for a in "$@"; do case "$a" in *.c) src="$a";; esac; done
echo "$src:1:10: fatal error: mpi.h: No such file or directory" >&2
echo "compilation terminated." >&2
exit 1
"""
OPENMPI_MPIEXEC = """#!/bin/sh
echo "mpiexec (OpenRTE) 4.1.4"
"""


@pytest.fixture
def headerless(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH whose first mpicc is Open MPI's without mpi.h."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for name, text in (("mpicc", HEADERLESS_MPICC), ("mpiexec", OPENMPI_MPIEXEC)):
        (bindir / name).write_text(text)
        (bindir / name).chmod(stat.S_IRWXU)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("CLOUDNOISE_CACHE_DIR", str(tmp_path / "cache"))
    return bindir


def _wheel_or_skip() -> Path:
    found = mpi_module._wheel_bin_dir()
    if found is None:
        pytest.skip("the mpich wheel is not installed (pip install 'cloudnoise[mpi]')")
    return found


def test_a_headerless_mpicc_gives_way_to_the_wheel_and_says_why(headerless: Path) -> None:
    wheel = _wheel_or_skip()
    chosen = find_mpi()
    assert chosen.source == "pip:mpich" and chosen.mpicc == wheel / "mpicc" and chosen.flavor == "mpich"
    assert f"the mpicc on PATH ({headerless / 'mpicc'}, Open MPI) cannot compile an MPI program" in chosen.reason
    assert "mpi.h: No such file or directory" in chosen.reason
    line = chosen.summary()
    assert line.startswith(f"MPI: MPICH ({chosen.version}), {wheel / 'mpicc'}: the MPICH that pip installed") and "\n" not in line
    assert chosen.as_dict()["reason"] == chosen.reason  # stored in the campaign's metadata


def test_without_the_wheel_it_stops_naming_the_headers_package(headerless: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLOUDNOISE_IGNORE_PIP_MPICH", "1")
    with pytest.raises(CloudnoiseError) as err:
        find_mpi()
    text = str(err.value)
    assert err.value.exit_code == 4 and "\n" not in text
    assert "cannot compile an MPI program (hello.c:1:10: fatal error: mpi.h: No such file or directory)" in text
    assert "install libopenmpi-dev" in text and "pip install 'cloudnoise[mpi]'" in text and "--mpicc" in text


def test_a_working_mpicc_is_checked_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The compile check is remembered: the second discovery compiles nothing."""
    monkeypatch.setenv("CLOUDNOISE_CACHE_DIR", str(tmp_path))
    try:
        first = find_mpi()
    except CloudnoiseError as err:
        pytest.skip(f"no MPI here: {err}")
    assert first.reason and first.as_dict()["reason"] == first.reason
    if first.source != "PATH":
        return
    real = mpi_module.subprocess.run
    compiles = []

    def counting(cmd, *args, **kwargs):
        compiles.extend(a for a in cmd if str(a).endswith("hello.c"))
        return real(cmd, *args, **kwargs)

    monkeypatch.setattr(mpi_module.subprocess, "run", counting)
    assert mpi_module.compile_problem(first.mpicc) is None and compiles == []


def test_demo_with_a_headerless_mpicc_and_no_wheel_is_one_line(headerless: Path, tmp_path: Path) -> None:
    proc = run("demo", "--quick", "--out", str(tmp_path / "d"), CLOUDNOISE_IGNORE_PIP_MPICH="1",
               PATH=os.environ["PATH"], CLOUDNOISE_CACHE_DIR=str(tmp_path / "cache"))
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert proc.returncode == 4 and len(lines) == 1, proc.stderr
    assert "mpi.h" in lines[0] and "libopenmpi-dev" in lines[0] and "--no-measure" in lines[0]


def test_measure_with_a_headerless_mpicc_says_it_used_the_wheel(headerless: Path, tmp_path: Path) -> None:
    _wheel_or_skip()
    out = tmp_path / "c"
    proc = run("measure", "os-noise", "--duration", "0.2", "--out", str(out), PATH=os.environ["PATH"],
               CLOUDNOISE_CACHE_DIR=str(tmp_path / "cache"), timeout=120)
    assert proc.returncode == 0, proc.stderr
    said = [ln for ln in proc.stderr.splitlines() if ln.startswith("cloudnoise: MPI: ")]
    assert len(said) == 1 and "MPICH" in said[0] and "cannot compile" in said[0], proc.stderr
    import json

    meta = json.loads((out / "metadata.json").read_text())
    assert meta["mpi"]["source"] == "pip:mpich" and "mpi.h" in meta["mpi"]["reason"]
