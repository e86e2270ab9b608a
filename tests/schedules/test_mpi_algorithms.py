"""MPI names as patterns: `allreduce`, `bcast`, `alltoall` simulate the algorithm MPICH
picks at that size and rank count (MPICH's default thresholds), the choice said; where
Schedgen has no such algorithm, one line and exit 2."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest

from cloudnoise.errors import CloudnoiseError
from cloudnoise.schedules.mpi_algorithms import mpich_choice
from cloudnoise.schedules.patterns import CollectiveSpec, count

from measure_support import env


@pytest.mark.parametrize(("call", "ranks", "size", "pattern"), [
    ("allreduce", 16, 2048, "dissemination"),       # MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE: at most 2048 B
    ("allreduce", 16, 2049, "allreduce_recdoub"),   # reduce-scatter + allgather above it
    ("allreduce", 4096, 3000, "dissemination"),     # fewer elements than the power of two: recursive doubling
    ("bcast", 64, 12287, "binomialtreebcast"),      # MPIR_CVAR_BCAST_SHORT_MSG_SIZE = 12288
    ("bcast", 7, 1 << 20, "binomialtreebcast"),     # fewer than MPIR_CVAR_BCAST_MIN_PROCS = 8 ranks
    ("alltoall", 4, 256, "linear_alltoall"),        # Bruck's only from 8 ranks
    ("alltoall", 64, 257, "linear_alltoall"),       # every block posted at once up to 32 KiB
    ("alltoall", 64, 32768, "linear_alltoall"),
    ("alltoall", 64, 32769, "linear_alltoall"),     # pairwise exchange: the same messages, said
])
def test_mpich_choices_at_its_thresholds(call: str, ranks: int, size: int, pattern: str) -> None:
    choice = mpich_choice(call, ranks, size)
    assert choice.pattern == pattern and choice.why.startswith(f"{call} of ") and f"simulated as {pattern}" in choice.why
    assert ("lower bound" in choice.why) == (call == "alltoall" and size > 32768)


@pytest.mark.parametrize(("call", "ranks", "size", "said"), [
    ("bcast", 8, 12288, "scatter + allgather"),
    ("alltoall", 8, 256, "Bruck's algorithm"),
])
def test_sizes_no_schedgen_pattern_covers_are_refused_naming_the_patterns_there_are(call, ranks, size, said) -> None:
    with pytest.raises(CloudnoiseError) as err:
        CollectiveSpec(call, ranks=ranks, size=size)
    text = str(err.value)
    assert said in text and "\n" not in text and err.value.exit_code == 2
    assert "binomialtreebcast" in text or "linear_alltoall" in text


def test_the_choice_follows_the_ranks() -> None:
    """A sweep rescales a collective's ranks: an MPI name is chosen again at each count."""
    spec = CollectiveSpec("allreduce", ranks=4, size=3000)
    assert (spec.pattern, spec.mpi_call) == ("allreduce_recdoub", "allreduce")
    wide = dataclasses.replace(spec, ranks=4096)
    assert (wide.pattern, wide.mpi_call) == ("dissemination", "allreduce")
    assert count(wide) == count(CollectiveSpec("dissemination", ranks=4096, size=3000))


def _cloudnoise(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cloudnoise", *args], capture_output=True, text=True, env=env(),
                          timeout=120)


def test_simulate_says_which_algorithm_and_refuses_in_one_line() -> None:
    ok = _cloudnoise("simulate", "--pattern", "allreduce", "--ranks", "16", "--size", "1MiB", "--L", "1000", "--json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["source"] == ("allreduce of 1 MiB on 16 ranks: MPICH runs reduce-scatter + allgather "
                                               "(above 2 KiB): simulated as allreduce_recdoub")
    same = _cloudnoise("simulate", "--pattern", "allreduce_recdoub", "--ranks", "16", "--size", "1MiB", "--L", "1000",
                       "--json")
    assert json.loads(same.stdout)["runtime_ns"] == json.loads(ok.stdout)["runtime_ns"]
    app = _cloudnoise("simulate", "--app", "gemm:64 + allreduce:16B", "--ranks", "8", "--L", "1000", "--gflops", "10")
    assert app.returncode == 0 and "allreduce:16B (MPICH's algorithm here: dissemination)" in app.stdout, app.stderr
    bad = _cloudnoise("simulate", "--pattern", "bcast", "--ranks", "64", "--size", "64KiB", "--L", "1000")
    lines = bad.stderr.strip().splitlines()
    assert bad.returncode == 2 and len(lines) == 1 and "scatter + allgather" in lines[0], bad.stderr
