"""The API's list parameters take the command line's comma form too:
a command line moved into Python keeps working."""

from __future__ import annotations

import numpy as np
import pytest

import cloudnoise
from cloudnoise.comma_lists import items_of, profile_names


def _sim(noise):
    return cloudnoise.simulate(pattern="dissemination", ranks=16, size="16B", profile="daint", noise=noise,
                               reps=4, seed=5)


def test_simulate_takes_the_noise_list_as_the_command_line_writes_it():
    comma, listed = _sim("none,both"), _sim(["none", "both"])
    assert list(comma.variants) == list(listed.variants) == ["none", "both"] and comma.variant == "none"
    for name in ("none", "both"):
        assert np.array_equal(comma.variants[name].runtime_ns, listed.variants[name].runtime_ns)
    spaced = _sim(" os , none ")
    assert list(spaced.variants) == ["os", "none"]


@pytest.mark.parametrize("noise, message", [("none,,both", "empty item"), ("none,loud", "loud")])
def test_a_bad_comma_list_is_one_line(noise, message):
    with pytest.raises(cloudnoise.CloudnoiseError) as err:
        _sim(noise)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_advise_takes_comma_profiles_and_node_ranges(monkeypatch):
    """The request built from "daint,azure-hpc" and "16..64:4" is the one built from the lists."""
    from cloudnoise.advice import api

    seen = []
    monkeypatch.setattr(api, "run_advice", lambda request, sweep_dir, in_process: seen.append(request))
    cloudnoise.advise("dissemination:16B", profiles="daint,azure-hpc", nodes="16..64:4", reps=10)
    cloudnoise.advise("dissemination:16B", profiles=["daint", "azure-hpc"], nodes=[16, 64], reps=10)
    comma, listed = seen
    assert [s.name for s in comma.systems] == [s.name for s in listed.systems] == ["daint", "azure-hpc"]
    assert comma.nodes == listed.nodes == (16, 64)


def test_a_path_object_is_one_profile_never_split(tmp_path):
    odd = tmp_path / "a,b.json"
    assert profile_names(odd) == [str(odd)] and profile_names([odd, "daint"]) == [str(odd), "daint"]
    assert profile_names("daint, azure-hpc") == ["daint", "azure-hpc"]
    assert items_of(["none", "os"], "noise") == ["none", "os"] and items_of("none,os", "noise") == ["none", "os"]


def test_measure_takes_one_label_as_one_text(tmp_path, monkeypatch):
    """A label is KEY=VALUE, as one --label: a text is one pair (its value may hold a comma)."""
    from cloudnoise.measurement.arguments import parse_labels

    assert parse_labels("system=aws,c5n") == {"system": "aws,c5n"}
    monkeypatch.chdir(tmp_path)
    with pytest.raises(cloudnoise.CloudnoiseError, match="distance"):
        cloudnoise.measure("latency", labels="distance=far")
    assert list(tmp_path.iterdir()) == []
