"""Shared fixtures: where the conformance vectors live, and a CLI runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("CLOUDNOISE_SHARED", REPO.parent / "shared"))
CONFORMANCE = SHARED / "conformance" / "loggops"


def conformance_vectors() -> list[dict]:
    path = CONFORMANCE / "vectors.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture
def run_cli():
    """Runs `python -m cloudnoise ARGS` and returns the CompletedProcess."""

    def run(*args: str, input: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "cloudnoise", *map(str, args)],
            capture_output=True,
            text=True,
            input=input,
            timeout=timeout,
        )

    return run


@pytest.fixture
def goal_file(tmp_path):
    """Writes GOAL text to a file and returns its path."""

    def write(text: str, name: str = "s.goal") -> Path:
        p = tmp_path / name
        p.write_text(text)
        return p

    return write
