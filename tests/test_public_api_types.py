"""Type checkers see the public API: mypy (strict, pyproject's [tool.mypy]) passes
on its modules, and a user's script gets the real result types, not Any."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

pytest.importorskip("mypy", reason="mypy comes with the test extra: pip install '.[test]'")


def _mypy(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    # MYPYPATH: this checkout's package, whatever the environment has installed
    env = {**os.environ, "MYPYPATH": str(REPO / "src")}
    return subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", os.devnull, "--config-file",
                           str(REPO / "pyproject.toml"), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


def test_the_public_api_is_clean_under_strict_mypy():
    run = _mypy()  # the files pyproject.toml lists
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Success: no issues found" in run.stdout


def test_a_users_script_sees_the_result_types(tmp_path):
    script = tmp_path / "user.py"
    script.write_text(textwrap.dedent('''
        import cloudnoise

        r = cloudnoise.simulate(pattern="dissemination", ranks=16, size="16B", reps=3, seed=1)
        reveal_type(r)
        reveal_type(r.runtime_ns)
        reveal_type(cloudnoise.cost("daint", nodes=4, runtime_ns=1e9))
        reveal_type(cloudnoise.load_profile("daint"))
        reveal_type(cloudnoise.measure)
        cloudnoise.simulate(pattern="dissemination", ranks="sixteen", size="16B")
        cloudnoise.cost("daint", nodes=4)
    '''))
    run = _mypy(str(script))  # pyproject's strict settings, on this file only
    out = run.stdout
    assert 'Revealed type is "cloudnoise.simulation.result.SimulationResult"' in out, out
    assert 'Revealed type is "numpy.ndarray' in out, out
    assert 'Revealed type is "cloudnoise.costs.model.RunCost"' in out, out
    assert 'Revealed type is "cloudnoise.model.profile.SystemProfile"' in out, out
    assert "def (experiment: str, *, out: str | os.PathLike[str] | None =, ranks: int | None =" in out, out
    # the two wrong calls are caught, and nothing else
    assert 'Argument "ranks" to "simulate" has incompatible type "str"' in out, out
    assert 'Missing named argument "runtime_ns" for "cost"' in out, out
    assert out.count("error:") == 2, out
