"""The public API is plain functions whose parameters every tool can see,
and `import cloudnoise` stays light."""

from __future__ import annotations

import importlib
import inspect
import json
import pydoc
import subprocess
import sys

import pytest

import cloudnoise

# Each public function and the stage module that defines it.
STAGES = {
    "simulate": "cloudnoise.simulation.api",
    "measure": "cloudnoise.measurement.api",
    "validate": "cloudnoise.validation.api",
    "cost": "cloudnoise.costs.api",
    "advise": "cloudnoise.advice.api",
    "load_profile": "cloudnoise.profiles.api",
    "copy_profile": "cloudnoise.profiles.api",
    "build_profile": "cloudnoise.model.api",
}
PUBLIC = list(STAGES)


def test_simulate_names_its_parameters():
    params = inspect.signature(cloudnoise.simulate).parameters
    for name in ("schedule", "pattern", "ranks", "size", "profile", "noise", "reps", "seed", "app", "trace",
                 "L", "o", "g", "G", "O", "S", "os_noise", "latency_noise", "bandwidth_noise", "threads"):
        assert name in params, name
    assert params["reps"].default == 1 and params["seed"].default == 0


def test_validate_names_its_parameters():
    params = inspect.signature(cloudnoise.validate).parameters
    for name in ("goal_file", "pattern", "size", "ranks", "app", "suite", "trace", "measured", "profile",
                 "L", "o", "g", "G", "O", "S", "noise", "reps", "warmup", "rep_gap", "seed", "ready_order",
                 "mpicc", "launcher", "hosts", "timeout", "out"):
        assert name in params, name
    assert params["seed"].default == 0 and params["warmup"].default == 20 and params["suite"].default is False
    assert params["reps"].default is None  # the command's: 1000, or 300 with the suite


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_function_is_its_stages_with_a_full_signature(name):
    """One definition: the package hands on the stage's own function, so a new parameter is one edit."""
    f = getattr(cloudnoise, name)
    assert inspect.isfunction(f) and f is getattr(importlib.import_module(STAGES[name]), name)
    assert f.__module__ == STAGES[name]
    sig = inspect.signature(f)
    kinds = {p.kind for p in sig.parameters.values()}
    assert inspect.Parameter.VAR_POSITIONAL not in kinds and inspect.Parameter.VAR_KEYWORD not in kinds
    assert sig.return_annotation is not inspect.Signature.empty
    assert all(p.annotation is not inspect.Parameter.empty for p in sig.parameters.values())
    doc = pydoc.render_doc(f, renderer=pydoc.plaintext)  # what help() shows
    first = next(iter(sig.parameters))
    assert f"{name}({first}" in doc and "Returns" in doc


def test_from_cloudnoise_import_gives_the_same_functions():
    from cloudnoise import advise, simulate, validate

    assert simulate.__module__ == "cloudnoise.simulation.api"
    assert validate.__module__ == "cloudnoise.validation.api" and advise.__module__ == "cloudnoise.advice.api"


def test_build_profile_takes_the_commands_parameters():
    """The public build_profile returns a SystemProfile; the command's writer takes the same options."""
    from cloudnoise.model import api, build

    ours = inspect.signature(api.build_profile).parameters
    theirs = inspect.signature(build.build_profile).parameters
    assert list(ours) == list(theirs)
    assert [p.default for p in ours.values()] == [p.default for p in theirs.values()]


def test_result_classes_are_exported():
    from cloudnoise.advice.api import Advice
    from cloudnoise.costs.model import RunCost
    from cloudnoise.measurement.api import MeasurementResult
    from cloudnoise.model.profile import SystemProfile
    from cloudnoise.simulation.result import SimulationResult
    from cloudnoise.validation.api import ValidationResult

    for cls in (Advice, RunCost, MeasurementResult, SystemProfile, SimulationResult, ValidationResult):
        assert getattr(cloudnoise, cls.__name__) is cls and cls.__name__ in cloudnoise.__all__
    assert set(PUBLIC) <= set(cloudnoise.__all__) and set(cloudnoise.__all__) <= set(dir(cloudnoise))


def test_load_and_build_profile_return_profiles(tmp_path):
    daint = cloudnoise.load_profile("daint")
    assert isinstance(daint, cloudnoise.SystemProfile) and daint.name == "daint"
    with pytest.raises(cloudnoise.CloudnoiseError, match="did you mean"):
        cloudnoise.load_profile("dain")


def _fresh(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_import_cloudnoise_loads_no_stage():
    run = _fresh("import sys, json, cloudnoise; print(json.dumps(sorted(sys.modules)))")
    assert run.returncode == 0, run.stderr
    loaded = set(json.loads(run.stdout))
    heavy = {"numpy", "pyarrow", "scipy", "matplotlib", "click", "rich", "cloudnoise._engine"}
    assert not heavy & loaded
    ours = {m for m in loaded if m.startswith("cloudnoise")}
    assert ours == {"cloudnoise", "cloudnoise.errors"}


def test_new_paths_import_without_a_warning():
    run = _fresh("import warnings; warnings.simplefilter('error')\n"
                 "import cloudnoise, cloudnoise.simulation.api, cloudnoise.costs.model, cloudnoise.advice.front")
    assert run.returncode == 0, run.stderr


def test_py_typed_ships():
    from importlib.resources import files

    assert files("cloudnoise").joinpath("py.typed").is_file()


def test_advise_gives_what_the_command_prints(run_cli):
    """cloudnoise.advise and `cloudnoise advise --json` on the same request: the same points."""
    args = dict(profiles=["daint"], nodes=[16, 64], reps=20, seed=2, deadline="20us")
    advice = cloudnoise.advise("dissemination:16B", **args)
    proc = run_cli("advise", "dissemination:16B", "--profile", "daint", "--nodes", "16,64", "--reps", "20", "--seed", "2",
                   "--deadline", "20us", "--in-process", "--json", timeout=300)
    assert proc.returncode == 0, proc.stderr
    printed = json.loads(proc.stdout)
    ours = json.loads(json.dumps(advice.to_dict()))
    assert ours["points"] == printed["points"] and len(ours["points"]) == 2
    assert ours["recommendation"] == printed["recommendation"]


def test_version_is_the_installed_distributions():
    from importlib.metadata import PackageNotFoundError, version

    try:
        expected = version("cloudnoise")
    except PackageNotFoundError:
        expected = "0.0.0+src"
    assert cloudnoise.__version__ == expected and "__version__" in cloudnoise.__all__
