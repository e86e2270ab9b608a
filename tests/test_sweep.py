"""`cloudnoise sweep`: presets, seeds and planning, Parquet parts and resume,
Dask (a local cluster of two worker processes, one of them killed mid-sweep),
the CLI's JSON contract and its one-line errors, and `cost --sweep`."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import signal
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cloudnoise.errors import CloudnoiseError
from cloudnoise.profiles.registry import resolve_profile
from cloudnoise.sweep import load_results
from cloudnoise.sweep.experiment import app_experiment, collective_experiment
from cloudnoise.sweep.plan import chunk_size, config_seed, missing_ranges, tasks_for
from cloudnoise.sweep.presets import PRESETS, get_preset
from cloudnoise.sweep.runner import System, quiet_dask
from cloudnoise.sweep.store import SweepStore
from cloudnoise.sweep.sweeper import SweepRequest, run_sweep

VARIANTS = ("none", "os", "network", "both")


def system(name: str) -> System:
    return System(name, name, resolve_profile(name))


def small_request(reps: int = 20, nodes: tuple[int, ...] = (4, 16), seed: int = 7) -> SweepRequest:
    """The brief's small sweep: 16 B dissemination, 2 systems, 2 scales, 4 variants."""
    return SweepRequest(
        collective_experiment("dissemination:16B"),
        (system("azure-hpc"), system("daint")),
        nodes,
        VARIANTS,
        reps,
        seed=seed,
    )


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The small sweep run in this process, without Dask."""
    out = tmp_path_factory.mktemp("ref")
    run_sweep(small_request(), out, in_process=True)
    return load_results(out)


@pytest.fixture(scope="module")
def cluster():
    """A local Dask cluster with two worker processes."""
    with local_cluster() as c:
        yield c


def local_cluster():
    """Two worker processes, started the way the CLI starts them (quietly)."""
    distributed = pytest.importorskip("distributed")
    with quiet_dask():  # the scheduler's HTTP server warns when port 8787 is taken
        return distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.CRITICAL
        )


# ---------------------------------------------------------------- presets


def test_presets_carry_the_papers_figures():
    assert {p.figure: p.spec for p in PRESETS.values()} == {
        "Fig. 14": "dissemination:16B",
        "Fig. 15": "pipelinedring:512MiB:schedgen=paper,segmentsize=size/ranks",
        "Fig. 16": "gemm:128 + dissemination:128KiB",
        "Fig. 17": "gemm:8192 + pipelinedring:512MiB:schedgen=paper,segmentsize=size/ranks",
    }


def test_the_paper_ring_preset_runs_the_authors_ring_with_one_segment_per_rank():
    from cloudnoise.sweep.experiment import collective_experiment
    from cloudnoise.schedules.patterns import count

    exp = collective_experiment(PRESETS["fig15-allreduce-ring"].spec)
    assert exp.collective is not None and exp.collective.schedgen == "paper"
    at_16 = dataclasses.replace(exp.collective, ranks=16)
    assert at_16.segment_bytes() == 32 * 2**20  # 512 MiB / 16
    # 16 segments a rank, every rank sends and receives each: the closed ring
    assert count(at_16)["sends"] == 16 * 16 and exp.ops_per_rep(16) == 2 * 16 * 16
    for p in PRESETS.values():
        for s in p.systems:
            resolve_profile(s)  # every default system exists
        assert all(n >= 2 for n in p.nodes)
        if "ring" in p.spec:
            assert p.ready_order == "program"  # LogGOPSim's order deadlocks on rings
    assert PRESETS["fig14-dissemination"].nodes[-1] == 16384


def test_presets_parse_into_workloads():
    p = get_preset("fig14-dissemination")
    e = collective_experiment(p.spec, name=p.name, figure=p.figure)
    # dissemination on 16 ranks: 4 rounds of one send and one receive per rank
    assert e.ops_per_rep(16) == 16 * 4 * 2
    app = get_preset("fig16-gemm-dissemination")
    e = app_experiment(app.spec, gflops=2.0, name=app.name, figure=app.figure)
    assert e.kind == "app" and e.describe()["figure"] == "Fig. 16"
    assert e.compute_ns == pytest.approx(2 * 128**3 / 2.0)  # 2 N^3 flop at 2 GFLOP/s, in ns
    ring = app_experiment(get_preset("fig17-gemm-allreduce").spec, gflops=1000.0)
    assert ring.ops_per_rep(4) > 0


def test_unknown_preset_says_what_exists():
    with pytest.raises(CloudnoiseError, match="did you mean 'fig14-dissemination'"):
        get_preset("fig14-disemination")


# ---------------------------------------------------------------- plan and seeds


def test_config_seed_is_a_stable_hash():
    # Known answers: a change here changes every published sweep's numbers.
    assert config_seed(0, "azure-hpc", 16) == 3009646065824600063
    assert config_seed(1, "azure-hpc", 16) == 5022678994227626813
    assert config_seed(0, "daint", 16) == 12029820641041294171
    assert config_seed(0, "azure-hpc", 64) == 16789584443579538783
    assert 0 <= config_seed(2**64 - 1, "x" * 100, 2**31 - 1) < 2**64


def test_chunks_cover_every_repetition_once():
    assert chunk_size(128, 1000) == 1000  # tiny schedules: one task
    assert chunk_size(458752, 1000) == 10  # 16Ki-rank dissemination: ~5M ops per task
    assert chunk_size(10**9, 7) == 1
    assert chunk_size(1_000_000, 7) == 4  # 7 reps at most 5 per task: two even chunks, not 5 + 2
    tasks = tasks_for("s", 16, "os", 10, 4)
    assert [(t.first_rep, t.reps) for t in tasks] == [(0, 4), (4, 4), (8, 2)]
    assert missing_ranges({0, 1, 5, 9}, 10) == [(2, 5), (6, 9)]
    tasks = tasks_for("s", 16, "os", 10, 4, done={0, 1, 5, 9})
    assert [(t.first_rep, t.reps) for t in tasks] == [(2, 2), (4, 1), (6, 2), (8, 1)]
    assert len({t.key for t in tasks_for("a/b", 4, "none", 100, 3)}) == 34


def test_results_layout_and_seeds(reference):
    t = reference
    assert t.schema.names == ["system", "nodes", "variant", "rep", "seed", "runtime_ns"]
    assert [str(f.type) for f in t.schema] == ["string", "int64", "string", "int64", "uint64", "double"]
    assert t.num_rows == 2 * 2 * 4 * 20
    rows = t.to_pylist()
    assert rows[0]["system"] == "azure-hpc" and rows[0]["nodes"] == 4 and rows[0]["variant"] == "none"
    assert [r["rep"] for r in rows[:20]] == list(range(20))
    for r in rows:  # all variants of a configuration share its seed
        assert r["seed"] == config_seed(7, r["system"], r["nodes"])
    # no noise: every repetition the same; noise only ever delays
    none = np.array([r["runtime_ns"] for r in rows if r["system"] == "daint" and r["nodes"] == 16 and r["variant"] == "none"])
    both = np.array([r["runtime_ns"] for r in rows if r["system"] == "daint" and r["nodes"] == 16 and r["variant"] == "both"])
    assert np.all(none == none[0]) and np.all(both >= none[0]) and both.max() > none[0]


def test_a_configuration_does_not_depend_on_the_rest_of_the_sweep(reference, tmp_path):
    """One system at one scale alone, chunked differently, gives the same rows."""
    req = SweepRequest(collective_experiment("dissemination:16B"), (system("daint"),), (16,), ("both", "os"), 20, seed=7)
    run_sweep(req, tmp_path, in_process=True, chunk=3)
    alone = load_results(tmp_path).to_pylist()
    full = {(r["system"], r["nodes"], r["variant"], r["rep"]): r for r in reference.to_pylist()}
    assert [r["variant"] for r in alone[:1] + alone[-1:]] == ["both", "os"]  # grid order as requested
    for r in alone:
        assert r == full[(r["system"], r["nodes"], r["variant"], r["rep"])]


def test_a_row_is_what_simulate_gives_with_the_configurations_seed(reference):
    """The sweep adds no randomness of its own: `cloudnoise simulate --profile daint
    --seed SEED` (SEED from the row) reproduces every repetition."""
    from cloudnoise.schedules.patterns import CollectiveSpec, generate
    from cloudnoise.simulation.api import simulate
    from cloudnoise.simulation.noise import noise_from_profile
    from cloudnoise.simulation.params import LogGOPS

    profile = resolve_profile("daint")
    seed = config_seed(7, "daint", 16)
    r = simulate(generate(CollectiveSpec("dissemination", 16, 16)), params=LogGOPS.from_profile(profile), reps=20,
                 seed=seed, noise=noise_from_profile(profile, seed), variant="both")
    rows = [x for x in reference.to_pylist() if (x["system"], x["nodes"], x["variant"]) == ("daint", 16, "both")]
    assert [x["runtime_ns"] for x in rows] == [float(v) for v in r.runtime_ns]


def test_a_variant_that_draws_nothing_is_simulated_once_with_the_same_bits(reference):
    """The noiseless cells are one task each whose runtime is simulated once and
    repeated: every row equals what the engine gives when it simulates each
    repetition (no shortcut), and `draws` says exactly
    which engine models hold something random."""
    from cloudnoise.schedules.patterns import CollectiveSpec, generate
    from cloudnoise.simulation.api import run_variant
    from cloudnoise.simulation.noise import noise_from_profile
    from cloudnoise.simulation.params import LogGOPS
    from cloudnoise.sweep.runner import config_setup
    from cloudnoise.sweep.sweeper import alike_cells, plan_tasks

    for name in ("daint", "azure-hpc", "oracle-hpc-metal", "aws-hpc-metal"):
        profile = resolve_profile(name)
        noise = noise_from_profile(profile, 1)
        for v in VARIANTS:
            if v in ("os", "both") and not noise.has_os or v in ("network", "both") and not noise.has_network:
                continue
            m = noise.engine_model(v)
            random = any(x is not None for x in (m.os, m.latency_excess_ps, m.bandwidth_fraction, m.bandwidth_episodes,
                                                 m.episode_process, m.latency_stalls, m.stall_process))
            random = random or (m.switch_draws is not None and m.switch_draws.random)
            assert noise.draws(v) == random == (v != "none"), (name, v)
    for name in ("azure-hpc", "daint"):
        profile = resolve_profile(name)
        for nodes in (4, 16):
            seed = config_seed(7, name, nodes)
            each = run_variant(generate(CollectiveSpec("dissemination", nodes, 16)), params=LogGOPS.from_profile(profile),
                               noise=noise_from_profile(profile, seed), variant="none", reps=20, seed=seed)
            rows = [x["runtime_ns"] for x in reference.to_pylist() if (x["system"], x["nodes"], x["variant"]) == (name, nodes, "none")]
            assert rows == [float(v) for v in each.runtime_ns]
    req = small_request()
    setups = {(s.name, n): config_setup(req.experiment_for(s), s, n, req.seed, req.ready_order)
              for s in req.systems for n in req.nodes}
    alike = alike_cells(setups, req.variants)
    assert alike == {(s.name, n, "none") for s in req.systems for n in req.nodes}
    tasks = plan_tasks(req, {}, None, alike)
    assert [(t.first_rep, t.reps) for t in tasks if t.variant == "none"] == [(0, 20)] * 4


def test_prepared_noise_builds_each_model_once_and_pickles_without_it():
    import pickle

    from cloudnoise.sweep.runner import config_setup

    setup = config_setup(collective_experiment("dissemination:16B"), system("azure-hpc"), 16, 0, "loggopsim")
    model = setup.noise.engine_model("both")
    assert setup.noise.engine_model("both") is model
    clone = pickle.loads(pickle.dumps(setup))
    assert clone.noise._models == {} and clone.noise.latency_source == setup.noise.latency_source
    assert clone.seed == config_seed(0, "azure-hpc", 16)


def test_a_task_runs_the_engine_on_the_threads_its_runner_gives(monkeypatch):
    """Dask runs one task per Dask thread and passes threads=1 (a task's engine
    taking every core as well put 2 x 2 threads on a 2-core machine in
    `paper`); tasks run one after the other in process keep every core."""
    from cloudnoise.sweep import task as task_module
    from cloudnoise.sweep.runner import config_setup

    setup = config_setup(collective_experiment("dissemination:16B"), system("azure-hpc"), 16, 0, "loggopsim")
    seen = []
    real = task_module.simulate

    def spy(*args, **kwargs):
        seen.append(kwargs.get("threads"))
        return real(*args, **kwargs)

    monkeypatch.setattr(task_module, "simulate", spy)
    (task,) = tasks_for("azure-hpc", 16, "both", 4, 4)
    out = task_module.run_chunk(setup, task, threads=1)
    assert seen == [1] and len(out.runtime_ns) == 4
    task_module.run_chunk(setup, task)
    assert seen == [1, None]


# ---------------------------------------------------------------- Dask


def test_dask_two_workers_match_in_process(reference, cluster, tmp_path):
    from distributed import Client

    with Client(cluster, set_as_default=False) as client:
        out = run_sweep(small_request(), tmp_path / "a", client=client, chunk=3)
    assert out.tasks_run == 2 * 2 * 4 * 7  # 20 reps in chunks of 3
    assert load_results(tmp_path / "a").equals(reference)
    # and through the scheduler's address, with the default chunking
    run_sweep(small_request(), tmp_path / "b", scheduler=cluster.scheduler_address, connect_timeout=30)
    assert load_results(tmp_path / "b").equals(reference)


def test_a_task_error_on_a_worker_is_one_line(cluster, tmp_path):
    from distributed import Client

    req = SweepRequest(
        collective_experiment("allreduce_ring:1MiB"), (system("daint"),), (16,), ("none",), 2, ready_order="loggopsim"
    )
    with Client(cluster, set_as_default=False) as client, pytest.raises(CloudnoiseError) as err:
        run_sweep(req, tmp_path, client=client).raise_failures()
    assert err.value.exit_code == 3
    assert "daint, 16 nodes, none noise" in str(err.value) and "--ready-order program" in str(err.value)
    assert "\n" not in str(err.value)


def test_killing_a_worker_mid_sweep_loses_nothing(tmp_path):
    """One of two worker processes is SIGKILLed after the first task is saved;
    its tasks are rerun and the results equal the undisturbed run's."""
    from distributed import Client

    req = SweepRequest(
        collective_experiment("dissemination:16B"), (system("azure-hpc"),), (256, 1024), ("none", "both"), 48, seed=3
    )
    run_sweep(req, tmp_path / "ref", in_process=True)
    killed: list[int] = []
    with local_cluster() as cluster, Client(cluster, set_as_default=False) as client:
        pids = client.run(os.getpid)
        assert len(pids) == 2

        def kill_one_after_the_first(result):
            if not killed:
                victim = sorted(pids.values())[0]
                os.kill(victim, signal.SIGKILL)
                killed.append(victim)

        out = run_sweep(req, tmp_path / "run", client=client, chunk=2, on_result=kill_one_after_the_first)
        assert out.tasks_run == 2 * 2 * 24
        # the nanny restarted the killed worker: a new process took its place
        deadline = time.monotonic() + 60
        while len(client.scheduler_info()["workers"]) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert killed[0] not in client.run(os.getpid).values()
    assert load_results(tmp_path / "run").equals(load_results(tmp_path / "ref"))
    assert not SweepStore(tmp_path / "run").part_files()  # merged


# ---------------------------------------------------------------- resume


class Interrupt(Exception):
    pass


def interrupted_sweep(out, parts: int) -> list:
    """Runs the small sweep into `out` and stops it after `parts` saved parts; their tasks."""
    saved = []

    def stop(result):
        saved.append(result.task)
        if len(saved) == parts:
            raise Interrupt

    with pytest.raises(Interrupt):
        run_sweep(small_request(), out, in_process=True, chunk=7, on_result=stop)
    return saved


def test_resume_after_an_interrupted_sweep(reference, tmp_path):
    saved = interrupted_sweep(tmp_path, 5)
    store = SweepStore(tmp_path)
    meta = store.read_meta()
    assert meta["complete"] is False and meta["finished"] is None
    assert len(store.part_files()) == 5 and not store.results_path.exists()
    partial = load_results(tmp_path)  # an incomplete sweep reads its parts
    assert partial.num_rows == sum(t.reps for t in saved)
    # a part being written when the sweep died is a temporary file: ignored
    (store.parts_dir / ".tmp-junk.parquet").write_bytes(b"PAR1 half written")
    out = run_sweep(small_request(), tmp_path, in_process=True)  # default chunking this time
    assert out.resumed_reps == partial.num_rows
    assert out.reps_run == 320 - partial.num_rows
    assert load_results(tmp_path).equals(reference)
    meta = store.read_meta()
    assert meta["complete"] is True and meta["finished"]
    again = run_sweep(small_request(), tmp_path, in_process=True)
    assert again.tasks_run == 0 and load_results(tmp_path).equals(reference)


def test_a_repetition_saved_twice_counts_once(reference, tmp_path):
    """A part left over next to results.parquet (or written twice) duplicates rows: one is kept."""
    saved = interrupted_sweep(tmp_path, 2)
    store = SweepStore(tmp_path)
    first = store.part_files()[0]
    (store.parts_dir / "copy.parquet").write_bytes(first.read_bytes())
    assert load_results(tmp_path).num_rows == sum(t.reps for t in saved)
    run_sweep(small_request(), tmp_path, in_process=True)
    assert load_results(tmp_path).equals(reference)


def test_extending_a_finished_sweep_keeps_its_repetitions(reference, tmp_path):
    run_sweep(small_request(reps=8), tmp_path, in_process=True)
    out = run_sweep(small_request(reps=20), tmp_path, in_process=True)
    assert out.resumed_reps == 2 * 2 * 4 * 8
    assert load_results(tmp_path).equals(reference)


def test_a_different_sweep_in_the_same_folder_is_refused(tmp_path):
    run_sweep(small_request(reps=2), tmp_path, in_process=True)
    with pytest.raises(CloudnoiseError, match="another seed"):
        run_sweep(small_request(reps=2, seed=8), tmp_path, in_process=True)
    other = SweepRequest(collective_experiment("dissemination:32B"), (system("daint"),), (4,), ("none",), 2, seed=7)
    with pytest.raises(CloudnoiseError, match="another workload"):
        run_sweep(other, tmp_path, in_process=True)


def test_a_profile_without_os_noise_cannot_run_the_os_variant(tmp_path):
    import shutil

    from cloudnoise.profiles.registry import DATA_DIR

    data = resolve_profile("daint").to_dict()
    data["name"], data["os_noise"] = "quiet-daint", None
    data["different_racks"]["os_noise"] = None  # none at either placement
    shutil.copy(DATA_DIR / "daint.npz", tmp_path / "daint.npz")  # its network samples, beside it
    path = tmp_path / "quiet.json"
    path.write_text(json.dumps(data))
    quiet = System("quiet-daint", str(path), resolve_profile(str(path)))
    req = SweepRequest(collective_experiment("dissemination:16B"), (quiet,), (4,), ("none", "os"), 2)
    with pytest.raises(CloudnoiseError, match="quiet-daint: its profile has no OS noise, so the 'os' variant cannot run"):
        run_sweep(req, tmp_path / "out", in_process=True)
    assert not (tmp_path / "out").exists()  # refused before anything was written
    run_sweep(SweepRequest(req.experiment, (quiet,), (4,), ("none", "network"), 2), tmp_path / "out", in_process=True)
    assert load_results(tmp_path / "out").num_rows == 4


def test_app_sweep_splits_compute_and_communication(tmp_path):
    exp = app_experiment("compute:1ms + dissemination:128KiB", iterations=2)
    req = SweepRequest(exp, (system("gcp-hpc"),), (4, 8), ("none", "network"), 3, seed=1)
    run_sweep(req, tmp_path, in_process=True)
    t = load_results(tmp_path)
    assert t.schema.names[-2:] == ["compute_ns", "communication_ns"]
    rows = t.to_pylist()
    for r in rows:
        assert r["compute_ns"] == 2_000_000.0
        assert r["communication_ns"] == pytest.approx(r["runtime_ns"] - 2_000_000.0)
        assert r["communication_ns"] > 0
    assert json.loads((tmp_path / "sweep.json").read_text())["compute"]["gcp-hpc"][0]["seconds"] == 0.001


def test_app_sweep_runs_gemm_at_each_systems_own_rate(tmp_path):
    """gemm:N on a profile runs at that system's rate (peak x efficiency), recorded
    with its source in sweep.json; --gflops overrides it for every system."""
    exp = app_experiment("gemm:1024 + dissemination:16B")
    systems = (system("daint"), system("azure-hpc"))
    run_sweep(SweepRequest(exp, systems, (4,), ("none",), 1), tmp_path / "own", in_process=True)
    meta = json.loads((tmp_path / "own" / "sweep.json").read_text())
    flop = 2 * 1024**3
    for s in systems:
        rate = s.profile.compute.gflops
        phase = meta["compute"][s.name][0]
        assert phase["method"] == "profile" and phase["gflops"] == rate and phase["rate_source"] == "measured"
        assert phase["seconds"] == pytest.approx(flop / (rate * 1e9))
    t = load_results(tmp_path / "own").to_pylist()
    assert {r["system"]: r["compute_ns"] for r in t} == pytest.approx(
        {s.name: flop / s.profile.compute.gflops for s in systems})
    given = SweepRequest(app_experiment("gemm:1024 + dissemination:16B", gflops=10.0), systems, (4,), ("none",), 1,
                         gflops=10.0)
    run_sweep(given, tmp_path / "given", in_process=True)
    meta = json.loads((tmp_path / "given" / "sweep.json").read_text())
    assert {meta["compute"][s.name][0]["method"] for s in systems} == {"gflops"}
    assert {r["compute_ns"] for r in load_results(tmp_path / "given").to_pylist()} == {flop / 10.0}


# ---------------------------------------------------------------- CLI


def test_cli_json_contract(run_cli, tmp_path):
    out = tmp_path / "s"
    args = ["sweep", "--pattern", "dissemination", "--size", "16B", "--profile", "azure-hpc,daint",
            "--nodes", "4,16", "--reps", "5", "--seed", "7", "--out", out, "--in-process", "--json"]
    p = run_cli(*args)
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)
    meta = json.loads((out / "sweep.json").read_text())
    assert data["sweep"] == meta
    assert meta["format"] == "cloudnoise-sweep/1"
    assert meta["experiment"] == {"name": "dissemination:16B", "kind": "collective", "spec": "dissemination:16B", "figure": None}
    assert meta["systems"] == ["azure-hpc", "daint"] and meta["nodes"] == [4, 16]
    assert meta["variants"] == list(VARIANTS) and meta["reps"] == 5 and meta["seed"] == 7
    assert meta["ready_order"] == "program" and meta["complete"] is True and meta["finished"]
    for key in ("created", "cloudnoise_version"):
        assert meta[key]
    table = pq.read_table(out / "results.parquet")
    assert table.num_rows == 2 * 2 * 4 * 5 and data["reps_total"] == 80 and data["reps_run"] == 80
    assert table.schema.field("seed").type == pa.uint64()
    assert len(data["summary"]) == 16
    s = data["summary"][1]
    assert (s["system"], s["nodes"], s["variant"], s["n"]) == ("azure-hpc", 4, "os", 5)
    # the same command again: nothing left to do, same results
    p = run_cli(*args)
    assert p.returncode == 0 and json.loads(p.stdout)["reps_run"] == 0
    assert pq.read_table(out / "results.parquet").equals(table)
    # --resume alone continues from sweep.json
    p = run_cli("sweep", "--resume", "--out", out, "--in-process", "--json")
    assert p.returncode == 0 and json.loads(p.stdout)["reps_resumed"] == 80

    # the same sweep on a local cluster of two worker processes: same table, nothing on stderr
    dask_args = [a if a != "--in-process" else "--workers" for a in args]
    dask_args[dask_args.index("--workers") + 1:dask_args.index("--workers") + 1] = ["2"]
    dask_args[dask_args.index("--out") + 1] = tmp_path / "d"
    p = run_cli(*dask_args)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    assert pq.read_table(tmp_path / "d" / "results.parquet").equals(table)

    p = run_cli("cost", "--sweep", out, "--json")
    assert p.returncode == 0, p.stderr
    cost = json.loads(p.stdout)
    row = next(r for r in cost["rows"] if (r["system"], r["nodes"], r["variant"]) == ("daint", 16, "network"))
    none = next(r for r in cost["rows"] if (r["system"], r["nodes"], r["variant"]) == ("daint", 16, "none"))
    # Table I on-demand, billed as daint bills: by the second, so a run of microseconds is one second
    assert row["cost_usd"] == pytest.approx(1 / 3600 * 16 * 1.73) and row["billing"] == "per-second"
    assert row["noise_increase"] == 0.0  # both runs billed the same second
    exact = json.loads(run_cli("cost", "--sweep", out, "--json", "--billing", "exact").stdout)
    row = next(r for r in exact["rows"] if (r["system"], r["nodes"], r["variant"]) == ("daint", 16, "network"))
    none = next(r for r in exact["rows"] if (r["system"], r["nodes"], r["variant"]) == ("daint", 16, "none"))
    assert row["cost_usd"] == pytest.approx(row["runtime_s"] / 3600 * 16 * 1.73)  # pro rata
    assert row["noise_increase"] == pytest.approx(row["runtime_s"] / none["runtime_s"] - 1)
    assert none["noise_increase"] is None
    assert {(b["nodes"], b["variant"]) for b in cost["cheapest"]} == {(n, v) for n in (4, 16) for v in VARIANTS}
    p = run_cli("cost", "--sweep", out)
    assert p.returncode == 0 and "cheapest, no noise" in p.stdout and "16 rows in all" in p.stdout
    assert all(len(line) < 200 for line in p.stdout.splitlines())  # a summary, one row per node count
    rows = [line.split() for line in p.stdout.splitlines() if line.strip().startswith(("4 ", "16 ")) and "%" in line]
    assert [r[0] for r in rows] == ["4", "16"]


def test_cli_sweeps_the_paper_ring_and_resumes_it(run_cli, tmp_path):
    # --schedgen and --segmentsize travel in the experiment's spec, so a resumed
    # sweep runs the same ring; the same cell as `simulate` gives, bit for bit.
    out = tmp_path / "ring"
    args = ["sweep", "--pattern", "pipelinedring", "--size", "1MiB", "--schedgen", "paper", "--segmentsize",
            "size/ranks", "--profile", "daint", "--nodes", "4", "--noise", "none,network", "--reps", "3",
            "--out", out, "--in-process", "--json"]
    p = run_cli(*args)
    assert p.returncode == 0, p.stderr
    spec = json.loads((out / "sweep.json").read_text())["experiment"]["spec"]
    assert spec == "pipelinedring:1MiB:schedgen=paper,segmentsize=size/ranks"
    p = run_cli("sweep", "--resume", "--reps", "4", "--out", out, "--in-process", "--json")
    assert p.returncode == 0, p.stderr
    table = pq.read_table(out / "results.parquet").to_pandas()
    ours = table[(table.variant == "none")].runtime_ns.iloc[0]
    from cloudnoise.simulation.api import simulate

    alone = simulate(pattern="pipelinedring", ranks=4, size="1MiB", segmentsize="size/ranks", schedgen="paper",
                     profile="daint", noise="none")
    assert ours == alone.runtime_ns[0] and len(table[table.variant == "network"]) == 4


def test_cli_preset_listing(run_cli):
    p = run_cli("sweep", "list-presets", "--json")
    assert p.returncode == 0
    assert [r["figure"] for r in json.loads(p.stdout)["presets"]] == ["Fig. 14", "Fig. 15", "Fig. 16", "Fig. 17"]
    p = run_cli("sweep", "--help")
    assert p.returncode == 0 and "fig17-gemm-allreduce" in p.stdout and "Fig. 17" in p.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["--preset", "nope", "--out", "{out}"], "no sweep preset 'nope'"),
        (["--pattern", "dissemination", "--size", "16B", "--profile", "azure-hcp", "--nodes", "4", "--out", "{out}"],
         "did you mean 'azure-hpc'"),
        (["--pattern", "dissemination", "--size", "16B", "--profile", "daint", "--nodes", "1,4", "--out", "{out}"],
         "--nodes: 1 is impossible"),
        (["--pattern", "dissemination", "--size", "16B", "--profile", "daint", "--nodes", "4", "--noise", "loud",
          "--out", "{out}"], "unknown variant 'loud'"),
        (["--pattern", "dissemination", "--profile", "daint", "--nodes", "4", "--out", "{out}"], "needs --size"),
        (["--preset", "fig14-dissemination"], "--out DIR"),
        (["--resume", "--out", "{out}"], "holds no sweep"),
        (["--pattern", "dissemination", "--size", "16B", "--profile", "daint", "--nodes", "4", "--out", "{out}",
          "--scheduler", "not an address"], "is not a Dask scheduler address"),
        (["--preset", "fig14-dissemination", "--pattern", "ring", "--out", "{out}"], "give one of --preset, --pattern or --app"),
        (["--app", "gemm:64 + nosuch:1KiB", "--profile", "daint", "--nodes", "4", "--out", "{out}"], "unknown phase kind 'nosuch'"),
        (["--pattern", "dissemination", "--size", "16B", "--iterations", "3", "--profile", "daint", "--nodes", "4",
          "--out", "{out}"], "--iterations and --gflops go with --app"),
        (["--preset", "fig15-allreduce-ring", "--schedgen", "paper", "--out", "{out}"], "--schedgen goes with --pattern"),
        (["--pattern", "allreduce_ring", "--size", "1MiB", "--schedgen", "paper", "--profile", "daint", "--nodes", "4",
          "--out", "{out}"], "has no pattern 'allreduce_ring'"),
        (["--pattern", "pipelinedring", "--size", "1MiB", "--schedgen", "pape", "--profile", "daint", "--nodes", "4",
          "--out", "{out}"], "choose public"),
    ],
)
def test_cli_bad_input_is_one_line(capsys, tmp_path, args, message):
    from cloudnoise.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["sweep", *[a.replace("{out}", str(tmp_path / "o")) for a in args]])
    err = capsys.readouterr().err
    assert exit_.value.code == 2, err
    assert message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_cli_unreachable_scheduler_is_one_line_and_no_hang(run_cli, tmp_path):
    p = run_cli("sweep", "--pattern", "dissemination", "--size", "16B", "--profile", "daint", "--nodes", "4",
                "--out", tmp_path, "--scheduler", "tcp://127.0.0.1:9", "--connect-timeout", "2", timeout=60)
    assert p.returncode == 2
    assert "cannot reach the Dask scheduler 'tcp://127.0.0.1:9' within 2 s" in p.stderr
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert p.stdout == ""


def test_cli_deadlock_is_one_line_with_exit_3(run_cli, tmp_path):
    p = run_cli("sweep", "--pattern", "allreduce_ring", "--size", "1MiB", "--profile", "daint", "--nodes", "16",
                "--reps", "1", "--noise", "none", "--ready-order", "loggopsim", "--out", tmp_path, "--in-process")
    assert p.returncode == 3
    assert "--ready-order program" in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_a_failed_cell_is_reported_and_the_rest_of_the_sweep_goes_on(run_cli, tmp_path):
    """LogGOPSim's order deadlocks the 16-node ring but not the
    4-node one; the 4-node cell is simulated and saved, the 16-node cell is
    named in sweep.json and in the one-line error."""
    out = tmp_path / "ring"
    p = run_cli("sweep", "--pattern", "allreduce_ring", "--size", "1KiB", "--profile", "daint", "--nodes", "16,4",
                "--reps", "2", "--noise", "none", "--ready-order", "loggopsim", "--out", out, "--in-process", "--json")
    assert p.returncode == 3, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "daint, 16 nodes" in p.stderr
    data = json.loads(p.stdout)
    assert [(r["nodes"], r["n"]) for r in data["summary"]] == [(4, 2)]
    assert [(f["system"], f["nodes"], f["variant"], f["exit_code"]) for f in data["failed"]] == [("daint", 16, "none", 3)]
    meta = json.loads((out / "sweep.json").read_text())
    assert meta["complete"] is False and meta["failed"][0]["nodes"] == 16


def test_a_folder_where_every_cell_failed_takes_another_order(run_cli, tmp_path):
    out = tmp_path / "ring"
    args = ["sweep", "--pattern", "allreduce_ring", "--size", "1KiB", "--profile", "daint", "--nodes", "16",
            "--reps", "2", "--noise", "none", "--out", out, "--in-process"]
    assert run_cli(*args, "--ready-order", "loggopsim").returncode == 3
    p = run_cli(*args, "--json")
    assert p.returncode == 0, p.stderr
    meta = json.loads(p.stdout)["sweep"]
    assert meta["complete"] is True and meta["failed"] == [] and meta["ready_order"] == "program"


def test_ctrl_c_says_what_was_kept_and_how_to_resume(capsys, monkeypatch, tmp_path):
    """Interrupted after a task: the repetitions saved and how to go on; before
    any: one line saying nothing was saved (never a promise of kept work)."""
    from cloudnoise import cli
    from cloudnoise.sweep import sweeper

    real = sweeper.run_sweep

    def after_one_task(*args, **kwargs):
        def stop(result):
            raise KeyboardInterrupt

        return real(*args, **{**kwargs, "on_result": stop, "chunk": 5})

    def at_once(*args, **kwargs):
        raise KeyboardInterrupt

    args = ["sweep", "--pattern", "dissemination", "--size", "16B", "--profile", "daint", "--nodes", "4",
            "--reps", "20", "--in-process", "--quiet"]
    for stub, out, said in ((at_once, tmp_path / "a", "interrupted before any repetition was saved"),
                            (after_one_task, tmp_path / "b", f"interrupted; 5 repetitions are saved in {tmp_path / 'b'}: "
                                                             f"rerun with --resume --out {tmp_path / 'b'} to continue")):
        monkeypatch.setattr(sweeper, "run_sweep", stub)
        with pytest.raises(SystemExit) as exit_:
            cli.main([*args, "--out", str(out)])
        err = capsys.readouterr().err
        assert exit_.value.code == 130
        assert err.strip().splitlines() == [f"cloudnoise: error: {said}"], err


def test_cost_of_a_sweep_with_an_unpriced_system(tmp_path):
    from cloudnoise.costs.cli import sweep_costs
    from cloudnoise.costs.model import parse_pricing

    req = SweepRequest(collective_experiment("dissemination:16B"), (system("alps"), system("daint")), (8,),
                       ("none", "both"), 4, seed=1)
    run_sweep(req, tmp_path, in_process=True)
    data = sweep_costs(tmp_path, parse_pricing("on-demand"))
    assert data["unpriced"] == ["alps"]  # no published price (N.A. in Table I)
    assert [b["system"] for b in data["cheapest"]] == ["daint", "daint"]
    alps = [r for r in data["rows"] if r["system"] == "alps"]
    assert all(r["cost_usd"] is None for r in alps) and alps[1]["noise_increase"] is not None
    from cloudnoise.costs.billing import EXACT

    fixed = sweep_costs(tmp_path, parse_pricing("2USD"), EXACT)
    row = fixed["rows"][0]
    assert row["cost_usd"] == pytest.approx(row["runtime_s"] / 3600 * 8 * 2.0) and fixed["unpriced"] == []
    billed = sweep_costs(tmp_path, parse_pricing("2USD"))["rows"][0]  # by the second: one second
    assert billed["cost_usd"] == pytest.approx(1 / 3600 * 8 * 2.0)
    with pytest.raises(CloudnoiseError, match="not a sweep folder"):
        sweep_costs(tmp_path / "nothing", parse_pricing("on-demand"))


def test_placement_is_part_of_the_sweep(tmp_path):
    """--placement different-racks runs the profile's different-racks block and
    is recorded; the folder refuses a continuation at the other placement.
    (AWS HPC c5n.18xlarge: the text reconstruction, whose blocks differ in L
    and G noiselessly; the authors' simulator charges Daint's far messages
    the near L and G without noise, docs/profile-format.md.)"""
    from cloudnoise.sweep.request import system_from

    def request(placement):
        return SweepRequest(collective_experiment("dissemination:16B"), (system_from("aws-hpc", placement),), (4,),
                            ("none",), 1, seed=7, placement=placement)

    run_sweep(request("different-racks"), tmp_path / "dr", in_process=True)
    run_sweep(request(None), tmp_path / "sr", in_process=True)
    meta = json.loads((tmp_path / "dr" / "sweep.json").read_text())
    assert meta["placement"] == "different-racks"
    assert meta["profiles"]["aws-hpc"]["placement"] == "different-racks"
    assert meta["profiles"]["aws-hpc"]["provenance"]["loggops"] == "reconstructed"
    dr, sr = (load_results(tmp_path / d)["runtime_ns"].to_pylist()[0] for d in ("dr", "sr"))
    assert dr != sr  # Table II's second block: 17.20 us min latency, not 16.79
    with pytest.raises(CloudnoiseError, match="another placement"):
        run_sweep(request(None), tmp_path / "dr", in_process=True)


def test_cost_of_a_sweep_prints_a_summary_and_every_row_as_csv(tmp_path, capsys):
    from cloudnoise import cli

    req = SweepRequest(collective_experiment("dissemination:16B"), (system("azure-hpc"), system("daint")), (8, 16),
                       ("none", "both"), 4, seed=1)
    run_sweep(req, tmp_path, in_process=True)
    cli.main(["cost", "--sweep", str(tmp_path)])
    out = capsys.readouterr().out
    assert "cheapest, no noise" in out and "cost of noise" in out
    assert "8 rows in all: --all prints them, --csv writes them" in out
    assert "e-0" not in out  # money written out, never in exponent form
    cli.main(["cost", "--sweep", str(tmp_path), "--csv"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("system,nodes,variant,reps,runtime_s,price_per_node_hour,billing,cost_usd,noiseless_runtime_s,"
                        "noiseless_cost_usd,noise_increase")
    assert len(lines) == 1 + 2 * 2 * 2
