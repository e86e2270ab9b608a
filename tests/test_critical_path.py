"""The critical path the engine records (src/engine/critical_path.*): its parts add up to
every repetition's runtime to the picosecond, the general, windowed and specialised loops
give the same path, recording changes no result, and known answers (the dissemination's
log2 P latencies, T(L + d) - T(L) = d x #L, a single OS detour) come out exactly."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from cloudnoise import _engine
from cloudnoise.schedules.patterns import CollectiveSpec, generate, pattern_names
from cloudnoise.simulation.params import LogGOPS
from conftest import CONFORMANCE, conformance_vectors
from loggops_model import to_goal
from random_schedules import random_schedule
from test_specialised_loops import NOISES, PARAMS, noise

PART = {name: k for k, name in enumerate(_engine.PATH_PARTS)}
COUNT = {name: k for k, name in enumerate(_engine.PATH_COUNTS)}
TABLE_COLUMNS = ("op", "message", "link", "kind", "dependency", "host", "peer", "bytes", "start_ps", "end_ps", "parts")


def recorded(sched, params, model, reps: int, seed: int = 1, **kw) -> dict:
    """A run with the path recorded (every repetition's segments kept), checked against the
    same run without: the same results bit for bit, and every path adding up to its runtime."""
    engine_params = params.to_engine() if isinstance(params, LogGOPS) else params
    plain = _engine.run(sched, engine_params, model, seed=seed, count=reps, **kw)
    out = _engine.run(sched, engine_params, model, seed=seed, count=reps, critical_path=True,
                      path_reps=list(range(reps)), **kw)
    for key in ("max_end_ps", "host_end_ps"):
        assert out[key].tolist() == plain[key].tolist()
    assert (out["events"], out["messages"], out["windowed"], out["specialised"]) == (
        plain["events"], plain["messages"], plain["windowed"], plain["specialised"])
    assert out["path_parts"].sum(axis=1).tolist() == out["max_end_ps"].tolist()
    for r in range(reps):
        path = out["paths"][r]
        assert path["parts"].sum(axis=1).tolist() == (path["end_ps"] - path["start_ps"]).tolist()
        assert path["parts"].sum(axis=0).tolist() == out["path_parts"][r].tolist()
        if len(path["op"]):
            assert path["start_ps"][0] == 0 and path["end_ps"][-1] == out["max_end_ps"][r]
            assert path["start_ps"][1:].tolist() == path["end_ps"][:-1].tolist()
    return out


def same_paths(a: dict, b: dict) -> None:
    assert a["path_parts"].tolist() == b["path_parts"].tolist()
    assert a["path_counts"].tolist() == b["path_counts"].tolist()
    assert a["path_noise"].tolist() == b["path_noise"].tolist()
    for rep, path in a["paths"].items():
        for col in TABLE_COLUMNS:
            assert path[col].tolist() == b["paths"][rep][col].tolist(), col


def every_loop(sched, params, model, reps: int = 2, seed: int = 1, **kw) -> dict:
    """The path through the loop `simulate` picks, the global order, and the general loop forced."""
    chosen = recorded(sched, params, model, reps, seed, **kw)
    for other in ({"sequential": True}, {"general": True}, {"general": True, "sequential": True}):
        same_paths(chosen, recorded(sched, params, model, reps, seed, **kw, **other))
    return chosen


VECTORS = conformance_vectors()


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_conformance_vectors_paths_add_up_in_every_loop(vector):
    params = LogGOPS.parse(**{k: str(v) for k, v in vector["params"].items()})
    sched = _engine.read_goal(str(CONFORMANCE / vector["goal"]))
    out = every_loop(sched, params, _engine.NoiseModel(), reps=1)
    assert out["max_end_ps"][0] == vector["max_end_ns"] * 1000


@pytest.mark.parametrize("noise_kind", NOISES)
@pytest.mark.parametrize("pattern", pattern_names())
def test_every_pattern_under_every_noise_gives_one_path(pattern, noise_kind):
    ranks, size = (7, 4096) if pattern != "allreduce_ring" else (6, 4096)
    spec = CollectiveSpec(pattern, ranks, size, nway=2, segmentsize=1024)
    params = PARAMS["overheads" if noise_kind != "switch" else "plain"]
    every_loop(generate(spec), params, noise(noise_kind), reps=2, seed=ranks + len(noise_kind), program_order=True)


@pytest.mark.parametrize("seed", range(12))
def test_random_schedules_give_one_path(seed):
    # Several CPUs and NICs per rank, irequires, wildcards, 0-byte and rendezvous messages.
    rng = random.Random(seed)
    S = rng.choice([0, 64, 4096])
    ranks, requires, irequires = random_schedule(rng, rng.choice([2, 3, 5]), rng.randrange(5, 40), S)
    sched = _engine.parse_goal(to_goal(ranks, requires, irequires).encode())
    params = LogGOPS.parse(L=str(rng.choice([0, 1000, 2500])), o=str(rng.choice([10, 200])), g="500",
                           G=str(rng.choice([0, 1, 6])), O=str(rng.choice([0, 1])), S=str(S))
    for noise_kind in ("none", "os+network", "stalls", "episodes"):
        every_loop(sched, params, noise(noise_kind), reps=2, seed=seed, program_order=True)
    # In-order delivery between two ranks (a recorded trace's): a message held behind the one
    # sent before it to the same rank waited for that one's flight.
    sched.in_order = True
    for noise_kind in ("network", "stepped", "stalls"):
        every_loop(sched, params, noise(noise_kind), reps=3, seed=seed, program_order=True)


def test_rendezvous_in_windows_gives_the_same_path():
    # Windows that place rendezvous completions as events of the senders (tests and benchmarks only).
    sched = generate(CollectiveSpec("binomialtreebcast", 24, 64 * 1024))
    a = recorded(sched, PARAMS["plain"], noise("os+network"), 3, sequential=True)
    b = recorded(sched, PARAMS["plain"], noise("os+network"), 3, rendezvous_windows=True, general=True)
    same_paths(a, b)


@pytest.mark.parametrize("ranks", [2, 3, 5, 16, 100, 1024])
def test_noiseless_dissemination_has_log2_p_latencies_on_its_path(ranks):
    sched = generate(CollectiveSpec("dissemination", ranks, 16))
    params = LogGOPS.parse(L="2500", o="1500", g="1000", G="0.006", O="0", S="65535")
    out = recorded(sched, params, _engine.NoiseModel(), 1)
    counts, parts = out["path_counts"][0], out["path_parts"][0]
    rounds = math.ceil(math.log2(ranks))
    assert counts[COUNT["L"]] == rounds
    assert parts[PART["L"]] == rounds * 2_500_000
    # Each round: the send's o, then the receive's o (the CPU is free again only then).
    assert counts[COUNT["o_send"]] == rounds and counts[COUNT["o_recv"]] == rounds
    assert parts[PART["o"]] == 2 * rounds * 1_500_000


def chain(ranks: int, calc_ns: int = 10_000) -> _engine.Schedule:
    """A unique path: each rank computes, sends to the next, the next receives before computing."""
    lines = [f"num_ranks {ranks}"]
    for r in range(ranks):
        body = []
        if r > 0:
            body += [f"r: recv 64b from {r - 1} tag 1"]
        body += [f"c: calc {calc_ns}"] + (["c requires r"] if r > 0 else [])
        if r + 1 < ranks:
            body += [f"s: send 64b to {r + 1} tag 1", "s requires c"]
        lines.append(f"rank {r} {{\n" + "\n".join(body) + "\n}")
    return _engine.parse_goal("\n".join(lines).encode())


@pytest.mark.parametrize("make", [lambda: chain(6),
                                  lambda: generate(CollectiveSpec("pipelinedring", 9, 9 * 1024, segmentsize=1024))],
                         ids=["chain", "public-ring"])
def test_added_latency_costs_d_per_latency_on_a_unique_path(make):
    sched = make()  # made here: a schedule held by the parametrisation would outlive the module
    base = LogGOPS.parse(L="3000", o="200", g="100", G="0.01", O="0", S="65535")
    out = recorded(sched, base, _engine.NoiseModel(), 1)
    n_L = int(out["path_counts"][0][COUNT["L"]])
    assert n_L > 0
    for d_ps in (1, 7, 250):
        later = base.with_overrides(L=f"{3000 + d_ps / 1000}ns")
        moved = _engine.run(sched, later.to_engine(), _engine.NoiseModel())["max_end_ps"][0]
        assert moved - out["max_end_ps"][0] == d_ps * n_L


def test_one_os_detour_on_the_path_shows_up_exactly():
    sched = chain(2)  # rank 0 computes 10 us, rank 1 waits for its message
    params = LogGOPS.parse(L="3000", o="200", g="100", G="0.01", O="0", S="65535")
    quiet = recorded(sched, params, _engine.NoiseModel(), 1)
    model = _engine.NoiseModel()
    # One detour of 3 us at 5 us (inside rank 0's calc, while rank 1 waits), between an
    # empty one at 0 and the trace's end a second later. Every rank reads it from offset 0.
    model.os = _engine.OsNoiseTrace(np.array([0, 5_000_000, 10**12], dtype=np.int64),
                                    np.array([0, 3_000_000, 1], dtype=np.int64))
    model.os_phase_ps = 0
    noisy = recorded(sched, params, model, 1)
    assert noisy["max_end_ps"][0] - quiet["max_end_ps"][0] == 3_000_000
    assert noisy["path_parts"][0][PART["os_detour"]] == 3_000_000
    assert noisy["path_noise"].tolist() == [[0, 0, PART["os_detour"], 3_000_000]]
    path = noisy["paths"][0]
    assert path["host"][0] == 0 and path["parts"][0][PART["os_detour"]] == 3_000_000


def test_links_say_why_each_activity_started():
    out = recorded(chain(3), PARAMS["plain"], _engine.NoiseModel(), 1)
    path = out["paths"][0]
    links = [_engine.PATH_LINKS[k] for k in path["link"]]
    # calc -> send's flight -> receive's CPU part -> calc -> flight -> receive -> calc
    assert links == ["cpu", "flight", "cpu", "cpu", "flight", "cpu", "cpu"]
    assert path["host"].tolist() == [0, 0, 1, 1, 1, 2, 2]
    # Each stretch released the next (dependencies), but the last, which ends the run.
    assert path["dependency"].tolist() == [1, 1, 1, 1, 1, 1, 0]


def test_network_noise_is_split_by_kind_and_sender():
    sched = generate(CollectiveSpec("dissemination", 32, 4096))
    params = LogGOPS.parse(L="1200", o="150", g="150", G="0.085", O="0", S="8192")
    for kind, parts in (("network", ("latency_draw", "bandwidth_draw")), ("stalls", ("latency_stall",)),
                        ("episodes", ("bandwidth_episode", "bandwidth_draw"))):
        out = recorded(sched, params, noise(kind), 4)
        on_path = {_engine.PATH_PARTS[p] for p in out["path_noise"][:, 2]}
        assert on_path and on_path <= set(parts) | {"os_detour"}, (kind, on_path)
        noiseless = {_engine.PATH_PARTS[k] for k in range(len(PART)) if out["path_parts"][:, k].any()}
        assert noiseless >= {"o", "L", "G"}


def test_activities_cover_the_ranks_asked_for():
    sched = generate(CollectiveSpec("dissemination", 8, 16))
    mask = np.zeros(8, dtype=np.uint8)
    mask[[0, 5]] = 1
    out = _engine.activities(sched, PARAMS["plain"].to_engine(), noise("os+network"), 3, 2, mask)
    acts = out["activities"]
    sends = (acts["message"] == 0) & (acts["kind"] == 1)
    assert set(acts["host"][sends].tolist()) == {0, 5}
    received = acts["message"] == 1
    assert set(acts["host"][received].tolist()) == {0, 5}
    assert (acts["parts"].sum(axis=1) == acts["end_ps"] - acts["start_ps"]).all()
    # 3 rounds: each rank's 3 sends (CPU, NIC, flight) and 3 messages taken (CPU, NIC)
    assert len(acts["op"]) == 2 * (3 * 3 + 3 * 2)
    assert out["path"]["end_ps"][-1] == out["max_end_ps"]
    plain = _engine.run(sched, PARAMS["plain"].to_engine(), noise("os+network"), seed=3, first=2)
    assert plain["max_end_ps"][0] == out["max_end_ps"]


def test_switch_draws_split_against_the_noiseless_network():
    # Daint's profile: every message's L and G drawn from measured sets (the authors'
    # semantics); its noiseless network is sets of one value, the profile's L and G.
    from cloudnoise.simulation.setup import load_system, resolve_noise, resolve_params

    system = load_system("daint")
    params, setup = resolve_params(system, {}), resolve_noise(system, 0)
    sched = generate(CollectiveSpec("dissemination", 64, 16))
    quiet = recorded(sched, params, setup.engine_model("none"), 1)
    assert quiet["path_parts"][0][PART["latency_draw"]] == 0 and quiet["path_parts"][0][PART["bandwidth_draw"]] == 0
    assert quiet["path_parts"][0][PART["L"]] == quiet["path_counts"][0][COUNT["L"]] * params.L_ps
    noisy = recorded(sched, params, setup.engine_model("network"), 4)
    assert noisy["path_parts"][:, PART["latency_draw"]].any()
    # the noise is what the draws add to the noiseless network's L
    assert (noisy["path_parts"][:, PART["L"]] == noisy["path_counts"][:, COUNT["L"]] * params.L_ps).all()


def test_a_message_held_behind_its_channel_waited_for_the_one_before():
    # Rank 0 sends 12 messages to rank 1, tags 7 and 8 in turn; under latency noise a later one
    # is drawn to arrive first, but in-order delivery between two ranks (Schedule.in_order, a
    # recorded trace's: MPI's order follows) holds it back behind the one before, whatever its tag.
    body0 = "\n".join(f"s{k}: send 8b to 1 tag {7 + k % 2}" for k in range(12))
    body1 = "\n".join([f"r{k}: recv 8b from 0 tag {7 + k % 2}" + (f"\nr{k} requires r{k - 1}" if k else "")
                       for k in range(12)])
    sched = _engine.parse_goal(f"num_ranks 2\nrank 0 {{\n{body0}\n}}\nrank 1 {{\n{body1}\nc: calc 100\nc requires r11\n}}\n"
                               .encode())
    params = LogGOPS.parse(L="1000", o="10", g="5", G="0", O="0", S="65535")
    free = _engine.run(sched, params.to_engine(), noise("network"), seed=5, count=20)["max_end_ps"]
    sched.in_order = True
    out = every_loop(sched, params, noise("network"), reps=20, seed=5)
    assert (out["max_end_ps"] != free).any()  # the order held some message back


def test_a_recording_that_would_not_fit_is_refused_before_it_runs(monkeypatch):
    from cloudnoise.errors import CloudnoiseError
    from cloudnoise.simulation import critical_path

    monkeypatch.setattr(critical_path.os, "sysconf", lambda name: 1000 if name == "SC_AVPHYS_PAGES" else 4096)
    with pytest.raises(CloudnoiseError, match="needs about .* GiB, and 0.0 GiB are free: give fewer --threads"):
        critical_path.check_memory(10**6, 2)
    critical_path.check_memory(10, 1)  # 400 bytes fit


def test_noise_drawn_per_repetition_gives_one_path():
    # Stalls and bandwidth drops drawn from (seed, repetition) by their processes, a
    # share of the hosts stalling: the same path from every loop, each part exact.
    def constant(ps: float) -> _engine.QuantileTable:
        return _engine.QuantileTable(np.array([0.0, 1.0]), np.array([ps, ps]))

    model = noise("network")
    model.stall_process = _engine.StallProcess.bursty(2e6, 4e6, constant(1.5e6), constant(4e5), constant(2e5), 10**9)
    model.latency_stalls_hosts = 0.5
    model.episode_process = _engine.EpisodeProcess(3e6, 5e6, constant(2e6), _engine.QuantileTable(
        np.array([0.0, 1.0]), np.array([0.3, 0.6])), 10**9)
    sched = generate(CollectiveSpec("dissemination", 48, 4096))
    out = every_loop(sched, PARAMS["plain"], model, reps=4, seed=3)
    on_path = {_engine.PATH_PARTS[p] for p in out["path_noise"][:, 2]}
    assert {"latency_stall", "bandwidth_episode"} <= on_path
