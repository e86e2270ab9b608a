"""A time, size or count beyond what the engine's int64 picoseconds hold, and a negative,
zero, NaN or infinite value where none can be, are refused where they enter, naming the
value and its source, never simulated into a silently wrong number."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import cloudnoise.profiles
from cloudnoise import _engine, limits
from hostile_support import refused_without_side_effects, sandbox

PROFILES = Path(cloudnoise.profiles.__file__).parent / "data"
SIM = ("simulate", "--pattern", "dissemination", "--ranks", "4", "--size", "16B", "--reps", "2")


def _goal(box, name: str, text: str):
    (box.work / name).write_text(text)
    return name


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("num_ranks 2\nrank 0 {\nl1: calc 99999999999999999999\n}\nrank 1 {\n}\n", "x.goal:3"),
        ("num_ranks 2\nrank 0 {\nl1: calc 100000000000001\n}\nrank 1 {\n}\n", ("x.goal:3", "calc time", "100000000000000")),
        ("num_ranks 2\nrank 0 {\nl1: send 9223372036854775000b to 1 tag 0\n}\nrank 1 {\n"
         "l1: recv 9223372036854775000b from 0 tag 0\n}\n", "message size"),
        ("num_ranks 4294967294\n", "number of ranks"),
    ],
    ids=["calc-beyond-64-bits", "calc-beyond-limit", "size-near-2^63", "num_ranks-2^32"],
)
def test_goal_values_beyond_the_engine_range(tmp_path, text, says):
    box = sandbox(tmp_path)
    refused_without_side_effects(box, "simulate", _goal(box, "x.goal", text), says=says)


def test_in_range_times_that_add_up_beyond_int64_stop_the_run(tmp_path):
    """Each calc is within the limit (10^5 s); a hundred of them in a row are not."""
    box = sandbox(tmp_path)
    lines = ["num_ranks 1", "rank 0 {"] + [f"l{i}: calc 100000000000000" for i in range(100)]
    lines += [f"l{i} requires l{i - 1}" for i in range(1, 100)] + ["}"]
    refused_without_side_effects(box, "simulate", _goal(box, "sum.goal", "\n".join(lines) + "\n"),
                                 says="simulated time overflows")


def test_os_noise_trace_beyond_the_time_range(tmp_path):
    box = sandbox(tmp_path)
    (box.work / "os.txt").write_text("9000000000000000\t100\n")
    refused_without_side_effects(box, *SIM, "--os-noise", "os.txt", says=("os.txt:1", "limit"))


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("--latency-noise", "lognormal:median=1e300ns,sigma=1", "too large"),
        ("--latency-noise", "lognormal:median=-5ns,sigma=1", "negative"),
        ("--latency-noise", "lognormal:median=nan,sigma=1", "nan"),
        ("--latency-noise", "lognormal:median=inf,sigma=1", "inf"),
        ("--bandwidth-noise", "uniform:low=0,high=1", "(0, 1]"),
        ("--bandwidth-noise", "uniform:low=0.5,high=1.5", "(0, 1]"),
        ("--bandwidth-noise", "uniform:low=nan,high=1", "nan"),
        ("--os-noise", "periodic:frequency=-5,duration=1us", "frequency"),
        ("--L", "-3ns", "-3ns"),
        ("--G", "inf", "inf"),
        ("--size", "9EiB", "9EiB"),
        ("--ranks", "4294967296", "4294967296"),
    ],
)
def test_cli_values(tmp_path, option, value, says):
    box = sandbox(tmp_path)
    refused_without_side_effects(box, *SIM, option, value, says=says)


@pytest.mark.parametrize(
    ("option", "content", "says"),
    [
        ("--latency-noise", "-3\n5\n7\n", ("lat.txt:1", "negative")),
        ("--latency-noise", "5\nnan\n", ("lat.txt:2", "finite")),
        ("--latency-noise", "5\ninf\n", ("lat.txt:2",)),
        ("--latency-noise", "1e300\n", ("lat.txt:1",)),
        ("--bandwidth-noise", "0.5\n1.5\n", ("lat.txt:2", "(0, 1]")),
        ("--bandwidth-noise", "0\n", ("lat.txt:1", "(0, 1]")),
    ],
)
def test_noise_sample_files(tmp_path, option, content, says):
    box = sandbox(tmp_path)
    (box.work / "lat.txt").write_text(content)
    refused_without_side_effects(box, *SIM, option, "lat.txt", says=says)


@pytest.mark.parametrize(
    ("path", "value", "says"),
    [
        (("loggops", "L"), -1.0, "L"),
        (("loggops", "L"), float("nan"), "NaN"),
        (("loggops", "o"), float("inf"), "o"),
        (("loggops", "G"), 1e300, "G"),
        (("loggops", "S"), 2**64, "S"),
    ],
)
def test_profile_values(tmp_path, path, value, says):
    box = sandbox(tmp_path)
    doc = json.loads((PROFILES / "daint.json").read_text())
    node = doc
    for key in path[:-1]:
        node = node[key]
    assert path[-1] in node, sorted(node)
    node[path[-1]] = value
    (box.work / "p.json").write_text(json.dumps(doc))  # json writes NaN / Infinity as JavaScript does
    refused_without_side_effects(box, *SIM, "--profile", "p.json", says=("p.json", says))


def test_the_engine_and_python_agree_on_the_limits():
    """cloudnoise.limits and src/engine/input_limits.hpp hold the same numbers."""
    assert _engine.MAX_TIME_PS == limits.MAX_TIME_PS
    assert _engine.MAX_MESSAGE_BYTES == limits.MAX_SIZE_BYTES
    assert _engine.MAX_RANKS == limits.MAX_RANKS
    assert _engine.MIN_EPISODE_FRACTION == limits.MIN_EPISODE_FRACTION


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--app", "gemm:1000000", "--ranks", "4", "--gflops", "1"), ("--app gemm:1000000", "1 GFLOP/s", "2e+09 s", "--gflops")),
        (("--app", "compute:20h", "--iterations", "100", "--ranks", "4"), ("--app", "100 iterations", "--iterations")),
    ],
    ids=["gemm-beyond-int64-ps", "compute-times-iterations"],
)
def test_app_compute_beyond_the_time_range(tmp_path, args, says):
    """A gemm phase of 2e9 s (2e21 ps, beyond int64) is refused naming the option, never an
    internal TypeError."""
    box = sandbox(tmp_path)
    refused_without_side_effects(box, "simulate", *args, says=says)


@pytest.mark.parametrize("price", ["1e400", "-3", "0", "spot:2"])
def test_pricing_beyond_range_names_the_option(tmp_path, price):
    box = sandbox(tmp_path)
    refused_without_side_effects(box, "cost", "--profile", "daint", "--nodes", "64", "--runtime", "1.5s",
                                 "--pricing", price, says=f"--pricing {price}")


@pytest.mark.parametrize(
    ("name", "content", "says"),
    [
        ("lat.txt", "120\n130\n-5000000\n140\n",
         ("p.json: latency_noise", "lat.txt:3", "-5000000", "cannot arrive before it is sent")),
        ("lat.csv", "latency_ns\n" + "100\n" * 5000 + "-20000.25\n" + "100\n" * 5000,
         ("p.json: latency_noise", "lat.csv:5002", "-20000.25", "cannot arrive before it is sent")),
    ],
    ids=["text", "csv-one-in-10001"],
)
def test_profile_latency_samples_file_below_the_least_latency(tmp_path, name, content, says):
    """A profile's samples file is checked value by value, so the message names the
    offending sample and its file, not a draw of the distribution made from it. Latency
    noise may be negative (round trips faster than the median) down to -(L + o): a
    message cannot arrive before it is sent (aws-hpc: -15,111 ns).
    aws-hpc: a profile whose every part is in its JSON (daint's OS trace and switch-draw
    samples are files beside it, which a copied JSON does not carry)."""
    box = sandbox(tmp_path)
    doc = json.loads((PROFILES / "aws-hpc.json").read_text())
    doc["latency_noise"] = {"provenance": {"kind": "measured", "source": "a test"}, "samples": name}
    (box.work / name).write_text(content)
    (box.work / "p.json").write_text(json.dumps(doc))
    refused_without_side_effects(box, *SIM, "--profile", "p.json", says=says)
