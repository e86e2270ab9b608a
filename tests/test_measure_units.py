"""Pure-Python pieces of `cloudnoise measure`: no MPI needed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cloudnoise.errors import CloudnoiseError
from cloudnoise.measurement import rows
from cloudnoise.measurement.campaign import Campaign
from cloudnoise.measurement.chunks import chunk_path, read_chunk
from cloudnoise.measurement.arguments import parse_labels, parse_size
from cloudnoise.measurement.experiments import Options, Run, Unit, plan
from cloudnoise.measurement.launcher import LaunchSpec, build_command
from cloudnoise.measurement.mpi import MpiInstallation
from cloudnoise.measurement.samples import KIND_RTT, RECORD, read_records
from cloudnoise.measurement.stream import Launch, Stream


def _mpi(flavor: str) -> MpiInstallation:
    return MpiInstallation(Path("/x/mpicc"), Path("/x/mpiexec"), flavor, "test", "v")


def test_parse_size():
    assert parse_size("1") == 1
    assert parse_size("64K") == 65536
    assert parse_size("16MiB") == 16 << 20
    with pytest.raises(CloudnoiseError):
        parse_size("big")


def test_sizes_mean_what_they_mean_in_every_command():
    """docs/reference/conventions.md: MB is 10^6 and MiB is 2^20 here as in `simulate --size`."""
    from cloudnoise.units import parse_size_bytes

    for text, expected in (("1MB", 10**6), ("1MiB", 2**20), ("64KB", 64_000), ("64KiB", 65536), ("1.5KB", 1500),
                           ("2GB", 2 * 10**9)):
        assert parse_size(text) == expected == parse_size_bytes(text)
    assert parse_size(str(2**31 - 1)) == 2**31 - 1
    for too_large in ("2GiB", "3GB", "3G"):
        with pytest.raises(CloudnoiseError, match="2\\^31-1"):
            parse_size(too_large)
    for bad in ("1.5B", "-1", "1 parsec", "1e999MB"):
        with pytest.raises(CloudnoiseError):
            parse_size(bad)


def test_labels_validate_distance():
    assert parse_labels(("system=aws", "distance=same-rack")) == {"system": "aws", "distance": "same-rack"}
    with pytest.raises(CloudnoiseError):
        parse_labels(("distance=far",))


def test_launch_commands():
    spec = LaunchSpec(hosts=["a", "b"], ppn=2)
    cmd = build_command(_mpi("mpich"), spec, 4, ["probe", "--x"])
    assert cmd == ["/x/mpiexec", "-n", "4", "-ppn", "2", "-hosts", "a,b", "probe", "--x"]
    cmd = build_command(_mpi("openmpi"), spec, 4, ["probe"])
    assert "--map-by" in cmd and "ppr:2:node" in cmd and "a:2,b:2" in cmd
    cmd = build_command(_mpi("mpich"), LaunchSpec(launcher="srun"), 2, ["probe"])
    assert cmd == ["srun", "-n", "2", "probe"]
    tmpl = LaunchSpec(launcher="mpirun -np {ranks} --bind-to core {cmd}")
    assert build_command(_mpi("openmpi"), tmpl, 2, ["probe", "a b"]) == [
        "mpirun", "-np", "2", "--bind-to", "core", "probe", "a b"]
    with pytest.raises(CloudnoiseError):
        build_command(_mpi("mpich"), LaunchSpec(launcher="mpirun -np {nope} {cmd}"), 2, ["p"])


def test_plans_follow_the_paper_defaults():
    lat = plan("latency", Options(), 2)
    assert [u.size for u in lat[0].units] == [1 << k for k in range(25)]
    assert all(u.iterations == 1000 for u in lat[0].units)
    conns = plan("connections", Options(ranks=32), 2)
    assert [r.pairs for r in conns] == [1, 2, 4, 8, 16] and all(r.split for r in conns)
    burst = plan("burst", Options(), 2)[0]
    assert burst.units[0].size == 1 << 20 and burst.units[-1].interval_ns == 10**9
    assert burst.warmup == 10 and burst.units[0].iterations == 20
    with pytest.raises(CloudnoiseError):
        plan("latency", Options(ranks=3), 2)


def test_latency_noise_over_several_hosts_measures_their_pairs_in_turn():
    """--hosts a,b,c,d: one launch per pair (a-b, then c-d), each for the duration, each its own
    series; an odd host out pairs with the first; two hosts or none: one launch as before."""
    runs = plan("latency-noise", Options(duration_s=5.0, hosts=4, host_names=["a", "b", "c", "d"]), 2)
    assert [r.extra["hosts"] for r in runs] == [["a", "b"], ["c", "d"]]
    assert all(r.ranks == 2 and r.ppn == 1 and r.duration_s == 5.0 for r in runs)
    odd = plan("latency-noise", Options(hosts=3, host_names=["a", "b", "c"]), 2)
    assert [r.extra["hosts"] for r in odd] == [["a", "b"], ["c", "a"]]
    two = plan("latency-noise", Options(hosts=2, host_names=["a", "b"]), 2)
    assert len(two) == 1 and "hosts" not in two[0].extra
    # a stored plan names its pairs' hosts by name only: anything else is refused on --resume
    stored = runs[0].as_dict()
    assert Run.from_dict(stored).extra["hosts"] == ["a", "b"]
    for bad in (["a"], ["a", "-hosts x"], ["a", "b;rm"], "ab"):
        with pytest.raises(CloudnoiseError, match="not valid"):
            Run.from_dict({**stored, "extra": {**stored["extra"], "hosts": bad}})


def test_loggp_plan_reaches_16_MiB_with_fewer_large_iterations():
    units = plan("loggp", Options(ranks=2), 2)[0].units
    assert [u.size for u in units] == [1 << k for k in range(25)]
    its = {u.size: u.iterations for u in units}
    assert its[1] == its[1 << 20] == 1000 and its[2 << 20] == 500 and its[16 << 20] == 62
    assert all(its[s] >= 50 for s in its)
    # iterations the user asks for hold at every size
    assert {u.iterations for u in plan("loggp", Options(ranks=2, iterations=30), 2)[0].units} == {30}


def test_loggp_plan_and_resume_by_rounds(tmp_path):
    """loggp runs the cn_loggp probe on ranks bound to cores, in rounds; an
    interrupted run resumes from the first round not finished."""
    from cloudnoise.measurement.campaign import Campaign
    from cloudnoise.measurement.runner import loggp_argv, remaining

    run = plan("loggp", Options(ranks=2, sizes=[1, 1024], iterations=50, rounds=4, train=6), 2)[0]
    assert run.probe == "cn_loggp" and run.extra == {"train": 6, "rounds": 4, "bind_core": True}
    argv = loggp_argv(Path("cn_loggp"), run, tmp_path / "p")
    assert argv[argv.index("--rounds") + 1] == "4" and argv[argv.index("--first-round") + 1] == "0"
    assert argv[argv.index("--sizes") + 1] == "1,1024" and argv[argv.index("--train") + 1] == "6"
    with pytest.raises(CloudnoiseError, match="--train"):
        plan("loggp", Options(ranks=2, train=1), 2)
    campaign = Campaign(tmp_path / "c")
    prefix = campaign.prefix("loggp", 0, 0)
    prefix.parent.mkdir(parents=True)
    (prefix.parent / f"{prefix.name}.rank0.info").write_text("round0_end_monotonic_ns=5\nround1_end_monotonic_ns=9\n")
    (prefix.parent / f"{prefix.name}.rank0.bin").write_bytes(b"")
    todo = remaining(campaign, "loggp", 0, run)
    assert todo is not None and todo.extra["first_round"] == 2
    assert loggp_argv(Path("x"), todo, prefix)[-1] == "2"
    (prefix.parent / f"{prefix.name}.rank0.info").write_text("".join(f"round{r}_end_monotonic_ns=1\n" for r in range(4)))
    assert remaining(campaign, "loggp", 0, run) is None


def test_torn_record_is_dropped(tmp_path):
    rec = np.zeros(3, dtype=RECORD)
    rec["value_ns"] = [1, 2, 3]
    path = tmp_path / "x.rank0.bin"
    path.write_bytes(rec.tobytes()[:-10])
    assert read_records(path)["value_ns"].tolist() == [1, 2]


def test_concurrent_pairs_take_the_slowest_pair(tmp_path):
    """Two pairs' chunk files -> one value per iteration, the slower pair's; every
    pair's sample stays in Parquet."""
    import pyarrow.parquet as pq

    from measure_support import write_chunk

    n = 4
    campaign = Campaign(tmp_path / "c")
    run = Run("cn_pingpong", "pingpong", 4, [Unit(1000, 0, n)], split=True)
    campaign.meta["experiments"]["connections"] = {"plan": [run.as_dict()]}
    prefix = campaign.prefix("connections", 0, 0)
    prefix.parent.mkdir(parents=True)
    for rank, values in ((0, [100, 200, 300, 400]), (1, [400, 100, 100, 100])):
        (prefix.parent / f"{prefix.name}.rank{rank}.info").write_text("clock_wall_ns=0\nclock_monotonic_ns=0\n")
        write_chunk(chunk_path(prefix, rank, 0), KIND_RTT, rank, 1000, 0, np.arange(n) * 1000, values)
    stream = Stream(campaign, "connections")
    stream.poll(Launch(0, 0, prefix, run), finished=True)
    rows_ = rows.pingpong_rows(stream.pingpong_groups(), [run], "connections")
    assert rows_[0]["samples"] == n and rows_[0]["connections"] == 2
    assert rows_[0]["min_us"] == 0.1  # iterations' worst RTTs: 400 200 300 400 -> min 200 ns, /2
    assert rows_[0]["max_us"] == 0.2
    assert np.isclose(rows_[0]["bandwidth_gbps"], 1000 * 8 / 100)
    assert pq.read_table(campaign.exp_dir("connections") / "samples.parquet").num_rows == 2 * n
    assert not list(prefix.parent.glob("*.cnk"))


def test_chunk_files_round_trip_with_wide_and_torn_blocks(tmp_path):
    from measure_support import write_chunk

    path = tmp_path / "p.rank0.c000000.cnk"
    starts = np.array([10, 20, 30, 30 + 5 * 10**9, 5 * 10**9 + 40, 5 * 10**9 + 50])
    values = np.array([1, 2, 6 * 10**9, 4, 5, 6])  # a 6 s sample and a 5 s gap need wide records
    write_chunk(path, KIND_RTT, 3, 64, 7, starts, values, seq0=100, block=2)
    got = read_chunk(path)
    assert got.t_ns.tolist() == starts.tolist() and got.value_ns.tolist() == values.tolist()
    assert got.seq.tolist() == list(range(100, 106)) and set(got.stream.tolist()) == {3}
    assert not got.torn
    path.write_bytes(path.read_bytes()[:-3])  # killed mid-write: the last record is torn
    torn = read_chunk(path)
    assert torn.torn and torn.value_ns.tolist() == values[:-1].tolist()
    path.write_bytes(b"\x00" * 64)
    with pytest.raises(CloudnoiseError):
        read_chunk(path)


def test_plan_from_metadata_is_checked():
    good = Run("cn_pingpong", "pingpong", 2, [Unit(1, 0, 10)]).as_dict()
    assert Run.from_dict(good).probe == "cn_pingpong"
    for bad in ({**good, "probe": "../../evil"}, {**good, "mode": "shell"}, {**good, "ranks": "2; rm"},
                {**good, "units": [{"size": -1, "interval_ns": 0, "iterations": 1}]},
                {**good, "duration_s": float("nan")}, {**good, "command": "x"}, "not a run"):
        with pytest.raises(CloudnoiseError):
            Run.from_dict(bad)  # type: ignore[arg-type]


def test_streaming_stats_merge_and_quantiles_are_exact_to_the_precision():
    from cloudnoise.measurement.summaries import RELATIVE_PRECISION, StreamStats, merged

    rng = np.random.default_rng(3)
    values = np.round(1000 * np.exp(rng.standard_normal(200_000))).astype(np.int64) + 1
    parts = np.array_split(values, 7)
    stats = []
    for chunk in parts:
        s = StreamStats()
        s.add(chunk)
        stats.append(StreamStats.from_json(s.to_json()))  # through the JSON state, as on resume
    total = merged(stats)
    assert total.count == len(values) and total.min == values.min() and total.max == values.max()
    assert total.sum == values.sum() and np.isclose(total.std, values.std())
    srt = np.sort(values)
    probs = np.array([0.0, 0.001, 0.25, 0.5, 0.9, 0.99, 0.999, 0.99999, 1.0])
    got = total.quantiles(probs)
    for p, g in zip(probs, got):
        rank = int(min(max(1, int(p * len(values) + 0.5)), len(values)))
        exact = srt[0] if p == 0 else srt[rank - 1]
        assert exact <= g <= exact * (1 + RELATIVE_PRECISION), (p, exact, g)
        if 0 < p < 1:
            assert g == total.percentile(100 * p)


def test_a_rank_whose_chunk_appears_late_is_converted_not_dropped(tmp_path):
    """Detour ranks rotate on their own: rank 1's chunk 0 may be created after rank 0's
    chunk 0 was converted; its samples must still reach Parquet and the summaries."""
    import pyarrow.parquet as pq

    from measure_support import write_chunk

    from cloudnoise.measurement.samples import KIND_DETOUR

    campaign = Campaign(tmp_path / "c")
    run = Run("cn_detour", "detour", 2, [Unit(0, 0, 0)], duration_s=10.0)
    prefix = campaign.prefix("os-noise", 0, 0)
    prefix.parent.mkdir(parents=True)
    for rank in (0, 1):
        (prefix.parent / f"{prefix.name}.rank{rank}.info").write_text("clock_wall_ns=0\nclock_monotonic_ns=0\n")
    write_chunk(chunk_path(prefix, 0, 0), KIND_DETOUR, 0, 0, 0, [10, 20], [5, 6])
    write_chunk(chunk_path(prefix, 0, 1), KIND_DETOUR, 0, 0, 0, [30], [7], seq0=2)
    stream = Stream(campaign, "os-noise")
    launch = Launch(0, 0, prefix, run)
    assert stream.poll(launch, finished=False) == 2  # rank 0's chunk 0 is finished
    write_chunk(chunk_path(prefix, 1, 0), KIND_DETOUR, 1, 0, 0, [15], [9])
    write_chunk(chunk_path(prefix, 1, 1), KIND_DETOUR, 1, 0, 0, [40], [8], seq0=1)
    assert stream.poll(launch, finished=False) == 1  # rank 1's late chunk 0
    assert stream.poll(launch, finished=True) == 2
    table = pq.read_table(campaign.exp_dir("os-noise") / "samples.parquet")
    assert sorted(table.column("value_ns").to_pylist()) == [5, 6, 7, 8, 9]
    assert {r: d.count for r, (d, _) in stream.detour_groups().items()} == {0: 3, 1: 2}
    assert not list(prefix.parent.glob("*.cnk"))
