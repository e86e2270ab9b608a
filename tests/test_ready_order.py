"""LogGOPSim orders simultaneously ready ops with an unstable std::sort; past
16 ops a host's receives are posted out of program order, and on Schedgen's
allreduce_ring LogGOPSim deadlocks. cloudnoise runs program order (MPI's) by
default, so every correct schedule completes, and reproduces LogGOPSim's order
exactly with `--ready-order loggopsim`."""

from __future__ import annotations

import json

import pytest

from cloudnoise import simulate
from cloudnoise.errors import CloudnoiseError
from cloudnoise.schedules.patterns import CollectiveSpec, generate
from cloudnoise.simulation.params import LogGOPS

PARAMS = LogGOPS.parse()
RING = CollectiveSpec(pattern="allreduce_ring", ranks=16, size=1024)


def test_loggopsim_order_deadlocks_on_the_ring_like_loggopsim():
    with pytest.raises(CloudnoiseError) as info:
        simulate(generate(RING), params=PARAMS, ready_order="loggopsim")
    assert info.value.exit_code == 3
    assert "--ready-order program" in str(info.value)


def test_program_order_completes_the_ring():
    r = simulate(generate(RING), params=PARAMS, ready_order="program")
    ops_and_messages = 16 * 2 * 2 * 15 + 16 * 2 * 15  # 60 ops + 30 messages per rank
    assert r.events == ops_and_messages
    # Every rank ends together: 30 steps of a ring, each step one 64-byte
    # message: o + L + o + 63*G after the previous step's receive, plus the
    # send's o that the next step waits for.
    assert len(set(r.host_end_ns.tolist())) == 1


def test_cli_ready_order(run_cli):
    proc = run_cli("simulate", "--pattern", "allreduce_ring", "--ranks", "16", "--size", "1KiB", "--ready-order", "loggopsim", "--json")
    assert proc.returncode == 3 and "--ready-order program" in proc.stderr
    proc = run_cli("simulate", "--pattern", "allreduce_ring", "--ranks", "16", "--size", "1KiB", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["ready_order"] == "program"


def test_default_order_completes_the_papers_1024_rank_ring(run_cli):
    """The paper's own ring workload completes with default options."""
    proc = run_cli("simulate", "--pattern", "allreduce_ring", "--ranks", "1024", "--size", "16MiB", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["ready_order"] == "program" and out["events"] == 6_285_312


def test_deadlock_hint_only_when_receives_were_reordered(goal_file):
    """A schedule that deadlocks with few ops ready at once (nothing is
    reordered) gets no program-order hint; 18 receives ready together are
    scrambled by LogGOPSim's std::sort even though all have the same kind,
    and that is said."""
    lonely = goal_file("num_ranks 2\nrank 0 {\nl1: recv 8b from 1 tag 1\n}\nrank 1 {\n}\n")
    with pytest.raises(CloudnoiseError) as info:
        simulate(lonely, params=PARAMS, ready_order="loggopsim")
    assert info.value.exit_code == 3 and "--ready-order" not in str(info.value)
    recvs = "".join(f"l{i}: recv 8b from 1 tag {i}\n" for i in range(18))
    many = goal_file(f"num_ranks 2\nrank 0 {{\n{recvs}}}\nrank 1 {{\n}}\n", "many.goal")
    with pytest.raises(CloudnoiseError) as info:
        simulate(many, params=PARAMS, ready_order="loggopsim")
    assert "out of program order" in str(info.value)
    with pytest.raises(CloudnoiseError) as info:
        simulate(many, params=PARAMS, ready_order="program")
    assert "--ready-order" not in str(info.value)
