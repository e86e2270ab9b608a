"""`cloudnoise profiles copy` and the one rule for a profile's side files:
a copy loads from anywhere, `show --json` says it is a view, and a moved or half-copied
profile is refused with one line that names the missing file and says `profiles copy`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import cloudnoise
from cloudnoise.cli import cli
from cloudnoise.model.distributions import spec_files
from cloudnoise.model.profile import load_profile, save_profile
from cloudnoise.profiles.registry import load_builtin

SIMULATE = ["simulate", "--pattern", "dissemination", "--ranks", "64", "--size", "16B", "--reps", "3", "--json"]


def _run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _one_line_naming(message: str, *words: str) -> None:
    line = message.strip().splitlines()
    assert len(line) == 1, message
    for word in words:
        assert word in line[0], (word, line[0])


def test_the_issues_transcript_works_with_profiles_copy(tmp_path, run_cli):
    """show --json > mine.json is a view (loading it says so); profiles copy makes the variant."""
    shown = _run("profiles", "show", "aws-hpc-metal", "--json")
    assert shown.exit_code == 0
    (tmp_path / "mine.json").write_text(shown.output)
    assert json.loads(shown.output)["view_of"]["note"].startswith("a view of the profile, not a loadable copy")
    refused = run_cli(*SIMULATE, "--profile", tmp_path / "mine.json")
    assert refused.returncode == 2 and refused.stdout == ""
    _one_line_naming(refused.stderr, "mine.json", "view", "profiles copy")

    mine = tmp_path / "mine"
    copied = _run("profiles", "copy", "aws-hpc-metal", str(mine))
    assert copied.exit_code == 0, copied.output
    assert sorted(p.name for p in mine.iterdir()) == ["aws-hpc-metal-os.npz", "aws-hpc-metal.json", "aws-hpc-metal.npz"]
    # edit a value, as the issue's user did: the copy loads and the edit takes effect
    doc = json.loads((mine / "aws-hpc-metal.json").read_text())
    doc["loggops"]["L"] = 2 * doc["loggops"]["L"]
    (mine / "aws-hpc-metal.json").write_text(json.dumps(doc))
    ran = _run(*SIMULATE, "--profile", str(mine / "aws-hpc-metal.json"), "--noise", "none")
    assert ran.exit_code == 0, ran.output
    builtin = _run(*SIMULATE, "--profile", "aws-hpc-metal", "--noise", "none")
    assert json.loads(ran.output)["params_ns"]["L"] == 2 * json.loads(builtin.output)["params_ns"]["L"]


def test_show_json_help_says_it_is_a_view():
    text = " ".join(_run("profiles", "show", "--help").output.split())
    assert "a view, not a loadable copy" in text and "profiles copy" in text


def test_a_copy_is_the_profile_bit_for_bit_and_loads_from_anywhere(tmp_path):
    """The copy's JSON is the original's with a `copied_from` record added (its
    parts' values hashed, model/edits.py); the side files are the original's bytes."""
    json_path = cloudnoise.copy_profile("daint", tmp_path / "a")
    assert json_path == (tmp_path / "a" / "daint.json").resolve()
    original = load_builtin("daint")
    copied = json.loads(json_path.read_text())
    record = copied.pop("copied_from")
    assert copied == json.loads(Path(original.origin).read_text())
    assert record["profile"] == "daint" and set(record["values_sha256"]) >= {"loggops", "prices", "os_noise"}
    for name, _ in original.side_files():
        assert (tmp_path / "a" / name).read_bytes() == (Path(original.origin).parent / name).read_bytes()
    shutil.move(tmp_path / "a", tmp_path / "elsewhere")  # the whole folder moves: it still loads
    moved = cloudnoise.load_profile(tmp_path / "elsewhere" / "daint.json")
    assert {k: v for k, v in moved.to_dict().items() if k != "copied_from"} == original.to_dict()
    assert moved.provenance_kinds() == original.provenance_kinds()  # nothing edited: the original's kinds
    assert moved.os_noise_source() is not None  # its side files are read from its new folder
    # the different-racks run's own OS-noise trace travels too
    assert {n for n, _ in original.side_files()} == {"daint.npz", "daint-os.npz", "daint-os-different-racks.npz"}
    assert moved.at("different-racks").os_noise_source() is not None
    again = cloudnoise.copy_profile(moved, tmp_path / "b")  # a copy of a copy, from a SystemProfile
    assert again.read_bytes() == (tmp_path / "elsewhere" / "daint.json").read_bytes()


def test_a_moved_profile_names_its_missing_file(tmp_path):
    cloudnoise.copy_profile("aws-hpc-metal", tmp_path / "copy")
    (tmp_path / "moved").mkdir()
    shutil.copy(tmp_path / "copy" / "aws-hpc-metal.json", tmp_path / "moved")
    with pytest.raises(cloudnoise.CloudnoiseError) as err:
        load_profile(tmp_path / "moved" / "aws-hpc-metal.json")
    _one_line_naming(str(err.value), "aws-hpc-metal.json", "aws-hpc-metal-os.npz", "missing", "profiles copy")


def test_a_half_copied_profile_names_the_file_it_lacks(tmp_path, run_cli):
    cloudnoise.copy_profile("aws-hpc-metal", tmp_path / "copy")
    half = tmp_path / "half"
    half.mkdir()
    for name in ("aws-hpc-metal.json", "aws-hpc-metal-os.npz"):
        shutil.copy(tmp_path / "copy" / name, half)
    proc = run_cli(*SIMULATE, "--profile", half / "aws-hpc-metal.json")
    assert proc.returncode == 2 and proc.stdout == ""
    _one_line_naming(proc.stderr, "switch_draws samples", "aws-hpc-metal.npz", "profiles copy")
    assert "Traceback" not in proc.stderr
    # and it cannot be copied on as if whole
    proc = run_cli("profiles", "copy", half / "aws-hpc-metal.json", tmp_path / "onward")
    assert proc.returncode == 2
    _one_line_naming(proc.stderr, "aws-hpc-metal.npz", "missing")
    assert not (tmp_path / "onward" / "aws-hpc-metal.json").exists()


def test_a_copy_never_overwrites_a_different_file(tmp_path):
    target = tmp_path / "t"
    target.mkdir()
    (target / "daint.json").write_text("{}\n")
    with pytest.raises(cloudnoise.CloudnoiseError, match="exists and differs"):
        cloudnoise.copy_profile("daint", target)
    assert (target / "daint.json").read_text() == "{}\n"
    with pytest.raises(cloudnoise.CloudnoiseError, match="own folder"):
        cloudnoise.copy_profile(load_builtin("daint"), Path(load_builtin("daint").origin).parent)


def test_side_files_of_a_profile_with_samples_in_a_subfolder(tmp_path):
    """Specs that name files (a path, empirical:file=, a mixture's component) and samples in a
    subfolder travel too, under the same relative names."""
    src = tmp_path / "src"
    (src / "noise").mkdir(parents=True)
    (src / "noise" / "lat.csv").write_text("excess_ns\n" + "\n".join(str(v) for v in range(100, 200)) + "\n")
    (src / "bw.csv").write_text("fraction\n" + "\n".join(f"0.{v}" for v in range(50, 99)) + "\n")
    doc = load_builtin("daint").to_dict()
    doc.pop("switch_draws", None)
    doc.pop("os_noise", None)
    doc.pop("different_racks", None)
    doc["latency_noise"] = {"provenance": {"kind": "measured", "source": "a test"}, "spec": "noise/lat.csv"}
    doc["bandwidth_noise"] = {"provenance": {"kind": "measured", "source": "a test"},
                              "spec": "mixture:0.5*empirical(file=bw.csv)+0.5*constant(value=1)"}
    (src / "p.json").write_text(json.dumps(doc))
    profile = load_profile(src / "p.json")
    assert [n for n, _ in profile.side_files()] == ["noise/lat.csv", "bw.csv"]
    copied = cloudnoise.copy_profile(src / "p.json", tmp_path / "dst")
    assert (tmp_path / "dst" / "noise" / "lat.csv").is_file() and (tmp_path / "dst" / "bw.csv").is_file()
    assert load_profile(copied).latency_distribution() is not None


@pytest.mark.parametrize(("spec", "files"), [
    ("lognormal:median=800ns,sigma=0.7", []),
    ("samples.parquet", ["samples.parquet"]),
    ("empirical:file=a.csv,column=x", ["a.csv"]),
    ("mixture:0.9*lognormal(median=1us,sigma=1)+0.1*empirical(file=tail.csv,scale=2)", ["tail.csv"]),
])
def test_spec_files_known_answers(spec, files):
    assert spec_files(spec) == files


def test_a_profile_saved_from_python_without_a_folder_names_files_as_given(tmp_path):
    """save_profile writes what it is given: a profile made in Python has no folder to copy from."""
    profile = load_builtin("alps")
    save_profile(profile, tmp_path / "alps.json")
    with pytest.raises(cloudnoise.CloudnoiseError, match="alps-os.npz"):
        load_profile(tmp_path / "alps.json")  # saved without its side files: refused, naming one


def test_an_edited_copy_says_edited_from_its_source(tmp_path):
    """An edited L is not the paper's published L: the copy's loggops loads as `edited`,
    naming the source's kind and a hash of the values it came from; the untouched parts
    keep their kinds, and a copy of the edited copy still compares with the original."""
    from cloudnoise.model.edits import values_sha256

    path = cloudnoise.copy_profile("aws-hpc-metal", tmp_path / "mine")
    doc = json.loads(path.read_text())
    published = values_sha256(doc["loggops"])
    doc["loggops"]["L"] *= 2
    doc["prices"]["provenance"]["source"] = "a note of mine"  # a provenance alone is not a value
    path.write_text(json.dumps(doc))
    mine = load_profile(path)
    original = load_builtin("aws-hpc-metal")
    assert mine.loggops.provenance.kind == "edited"
    assert mine.loggops.provenance.source.startswith(
        f"edited from aws-hpc-metal's published values (sha256 {published[:12]}), which came from: ")
    kinds = mine.provenance_kinds()
    assert kinds["loggops"] == "edited" and {k: v for k, v in kinds.items() if k != "loggops"} == {
        k: v for k, v in original.provenance_kinds().items() if k != "loggops"}
    assert mine.prices.provenance.kind == "published"
    shown = _run("profiles", "show", str(path))
    assert "edited: edited from aws-hpc-metal's published values" in " ".join(shown.output.split())
    again = cloudnoise.copy_profile(mine, tmp_path / "again")
    assert load_profile(again).loggops.provenance.kind == "edited"
