"""Every class of input that could raise a Python traceback is one line and exit 2: a
directory where a file belongs, numbers beyond Python's float or int, an input
that would need all the memory, nesting deeper than Python's recursion, UTF-16 and binary
files, and JSON documents (profiles, campaign metadata, sweep.json) of the wrong types."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import cloudnoise.profiles
from hostile_support import refused_without_side_effects, sandbox
from report_support import write_known_campaign, write_sweep

PROFILES = Path(cloudnoise.profiles.__file__).parent / "data"
DISS = ("--pattern", "dissemination", "--ranks", "4", "--size", "16B")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("simulate", "d"), "directory"),
        (("simulate", *DISS, "--profile", "d"), "d: is a directory"),
        (("simulate", *DISS, "--os-noise", "d"), "d: is a directory"),
        (("simulate", *DISS, "--latency-noise", "d"), "d: is a directory"),
        (("simulate", "--app", "d", "--ranks", "4"), "d: is a directory"),
        (("model", "build", "d", "-o", "p.json"), "no metadata.json"),
        (("cost", "--sweep", "d"), "no sweep.json"),
        (("trace", "convert", "d", "-o", "x.goal"), "no trace found"),
        (("profiles", "show", "d"), "d: is a directory"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, tuple) else None,
)
def test_a_directory_where_a_file_belongs(tmp_path, args, says):
    box = sandbox(tmp_path)
    (box.work / "d").mkdir()
    refused_without_side_effects(box, *args, says=says)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("cost", "--profile", "daint", "--nodes", "4", "--runtime", "1e309s"), "too large"),  # float overflow
        (("simulate", *DISS, "--seed", str(2**64)), "--seed"),  # beyond uint64
        (("simulate", *DISS, "--reps", "1e400"), "--reps"),
        (("simulate", "--pattern", "dissemination", "--ranks", "1000000000", "--size", "16B"), "limit"),
        (("simulate", *DISS, "--os-noise", "random:rate=1e12,duration=5us"), "detours"),  # a trace beyond memory
    ],
)
def test_numbers_beyond_what_fits(tmp_path, args, says):
    box = sandbox(tmp_path)
    refused_without_side_effects(box, *args, says=says)


def _nested_json(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(
    ("name", "content", "args", "says"),
    [
        ("p.json", _nested_json(100_000), ("simulate", *DISS, "--profile", "p.json"), "nested too deeply"),
        ("a.toml", "x = " + "[" * 50_000 + "]" * 50_000 + "\n", ("simulate", "--app", "a.toml", "--ranks", "4"),
         "nested too deeply"),
    ],
)
def test_nesting_beyond_pythons_recursion(tmp_path, name, content, args, says):
    box = sandbox(tmp_path)
    (box.work / name).write_text(content)
    refused_without_side_effects(box, *args, says=says)


def _utf16(path: Path) -> bytes:
    return path.read_text().encode("utf-16")


BINARY = bytes(range(256)) * 4


@pytest.mark.parametrize(
    ("name", "content", "args", "says"),
    [
        ("p.json", _utf16(PROFILES / "daint.json"), ("simulate", *DISS, "--profile", "p.json"), "UTF-16"),
        ("p.json", BINARY, ("profiles", "show", "p.json"), "binary"),
        ("s.goal", "num_ranks 1\nrank 0 {\n}\n".encode("utf-16"), ("simulate", "s.goal"), "s.goal"),
        ("s.goal", BINARY, ("simulate", "s.goal"), "binary"),
        ("a.toml", BINARY, ("simulate", "--app", "a.toml", "--ranks", "4"), "a.toml"),
        ("a.toml", "iterations = 3\n".encode("utf-16"), ("simulate", "--app", "a.toml", "--ranks", "4"), "a.toml"),
        ("os.txt", BINARY, ("simulate", *DISS, "--os-noise", "os.txt"), "binary"),
        ("lat.txt", BINARY, ("simulate", *DISS, "--latency-noise", "lat.txt"), "binary"),
        ("lat.txt", "100\n200\n".encode("utf-16"), ("simulate", *DISS, "--latency-noise", "lat.txt"), "lat.txt"),
    ],
)
def test_utf16_and_binary_files(tmp_path, name, content, args, says):
    box = sandbox(tmp_path)
    (box.work / name).write_bytes(content)
    refused_without_side_effects(box, *args, says=says)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda d: d.update(loggops="fast"), "loggops must be an object"),
        (lambda d: d["loggops"].update(L="952"), "loggops.L must be a number"),
        (lambda d: d["loggops"].update(S=[1]), "loggops.S"),
        (lambda d: d.update(os_noise=[]), "os_noise"),
        (lambda d: d.update(name=None), "name"),
        (lambda d: d.clear(), "p.json"),
        # a samples file name with a NUL, which the OS refuses with a ValueError
        # (the OS trace dropped: the sandbox holds only p.json)
        (lambda d: d.update(os_noise=None) or d["switch_draws"].update(samples="lat\u0000.npz"), "NUL"),
        (lambda d: d.update(os_noise=None) or d["switch_draws"].update(samples="../../etc/hostname"),
         "outside the folder"),
        (lambda d: d["switch_draws"].update(nodes_per_switch=0), "nodes_per_switch"),
    ],
)
def test_profile_json_of_the_wrong_types(tmp_path, change, says):
    box = sandbox(tmp_path)
    doc = json.loads((PROFILES / "daint.json").read_text())
    doc["different_racks"].pop("os_noise", None)  # its trace is not in the sandbox (a side file the case is not about)
    change(doc)
    (box.work / "p.json").write_text(json.dumps(doc))
    refused_without_side_effects(box, "simulate", *DISS, "--profile", "p.json", says=("p.json", says))


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda m: m.update(experiments=5), "metadata.json"),
        (lambda m: m["experiments"]["latency"].update(plan="all"), "metadata.json"),
        (lambda m: m.update(labels=["a"]), "metadata.json"),
    ],
)
def test_campaign_metadata_of_the_wrong_types(tmp_path, change, says):
    box = sandbox(tmp_path)
    write_known_campaign(box.work / "c")
    meta = json.loads((box.work / "c" / "metadata.json").read_text())
    change(meta)
    (box.work / "c" / "metadata.json").write_text(json.dumps(meta))
    refused_without_side_effects(box, "model", "build", "c", "-o", "p.json", says=says)
    refused_without_side_effects(box, "report", "--campaign", "c", "--profile", "daint", "-o", "r", says=says,
                                 out=box.work / "r")


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda m: m.update(systems="daint"), "sweep.json"),
        (lambda m: m.update(nodes=["four"]), "sweep.json"),
        (lambda m: m.update(experiment=7), "sweep.json"),
        (lambda m: m.update(format="cloudnoise-sweep/99"), "sweep.json"),
    ],
)
def test_sweep_json_of_the_wrong_types(tmp_path, change, says):
    box = sandbox(tmp_path)
    root = write_sweep(box.work / "s", {("daint", 4, "none"): [1000.0, 1100.0], ("daint", 4, "both"): [1200.0, 900.0]})
    meta = json.loads((root / "sweep.json").read_text())
    change(meta)
    (root / "sweep.json").write_text(json.dumps(meta))
    refused_without_side_effects(box, "cost", "--sweep", "s", says=says)
    refused_without_side_effects(box, "report", "--sweep", "s", "-o", "r", says=says, out=box.work / "r")
