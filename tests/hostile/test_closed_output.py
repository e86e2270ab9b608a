"""A reader that stops early (`cloudnoise ... --json | head -c 10`): the command
exits 0 and says nothing, whether its output is buffered or not. Before, click
turned the broken pipe into a silent exit 1 (documented as an internal error),
and a buffered stdout failed at the exit flush with a traceback and exit 120."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hostile_support import sandbox

COMMANDS = [
    ["profiles", "show", "azure-hpc", "--json"],
    ["simulate", "--pattern", "dissemination", "--size", "16B", "--ranks", "64", "--L", "100", "--o", "200",
     "--g", "100", "--G", "0.1", "--reps", "5", "--json"],
]


@pytest.mark.parametrize("unbuffered", ["1", ""])
@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: a[0])
def test_a_reader_that_goes_away_is_not_an_error(tmp_path, args: list[str], unbuffered: str) -> None:
    box = sandbox(tmp_path)
    env = box.env()
    env.pop("PYTHONUNBUFFERED", None)
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    proc = subprocess.Popen([sys.executable, "-m", "cloudnoise", *args], cwd=box.work, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the first byte: every write fails with EPIPE
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0, err
    assert err == ""
