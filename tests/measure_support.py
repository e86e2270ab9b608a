"""Helpers shared by the tests of `cloudnoise measure` (not a test module)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import cloudnoise
from cloudnoise.errors import CloudnoiseError

SRC = str(Path(cloudnoise.__file__).resolve().parents[1])


def mpi_or_skip() -> None:
    """Skip (with the reason) when no MPI can be found at all."""
    from cloudnoise.measure.mpi import find_mpi

    try:
        find_mpi()
    except CloudnoiseError as err:
        pytest.skip(f"no MPI on this machine: {err}")


def env(**extra: str) -> dict[str, str]:
    """The environment for a `cloudnoise` subprocess running this checkout."""
    out = dict(os.environ)
    out["PYTHONPATH"] = SRC + (os.pathsep + out["PYTHONPATH"] if out.get("PYTHONPATH") else "")
    out.update(extra)
    return out


def cloudnoise_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "cloudnoise", *args]


def run(*args: str, timeout: float = 60, **extra_env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cloudnoise_cmd(*args), capture_output=True, text=True,
                          timeout=timeout, env=env(**extra_env))


def run_json(*args: str, timeout: float = 60) -> dict[str, Any]:
    proc = run(*args, "--json", timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)
