"""`cloudnoise profiles build`: the paper's systems from the authors' data.

Every built-in profile of a paper system, written from

* the artifact (`--artifact`, the authors' data repository): per system the
  run description.csv names for its placement (Day, as their simulate.py
  read it), or another stored run of the same system where the stored copy
  lacks it (said in the profile): latency and bandwidth samples as their
  simulate.py converted them, both placements, into NAME.npz (sorted: the
  draws are uniform over the multiset, and sorted arrays compress to a few
  kB); the OS-noise trace their simulator read of the run's ng_osnoise.out
  (profiles/artifact/authors_inputs.effective_trace), to the nearest ns,
  into NAME-os.npz; the compute rate, the median GFLOP/s of the largest DGEMM
  of the system's compute run;
* the authors' LogGOPS parameters, same rack and different racks, and nodes
  per switch (profiles/authors_parameters.py), simulated with their
  semantics (the profile's `switch_draws`, docs/profile-format.md);
* the text-based reconstruction for what has no data: hardware, prices and
  Table II are published (profiles/reconstruct.py); the noise of a system
  without network data in the stored copy (Oracle HPC) and of the systems
  the authors did not simulate (AWS HPC c5n.18xlarge, Oracle Normal) is the
  calibration's (the record data/calibration.json, profiles/calibrate/),
  labelled so. The calibration models only those (and c5n.metal, whose
  fitted tail c5n.18xlarge takes): a system with neither a run in the given
  artifact nor a calibrated model is not written, and the build says why.

Deterministic: the same artifact and record give the same files bit for bit
(`--compare` checks them against the built-in ones).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from cloudnoise.errors import CloudnoiseError
from cloudnoise.measurement.imports.netgauge_reading import run_files
from cloudnoise.model.os_noise import OSNoiseTrace, write_npz_trace
from cloudnoise.model.profile import (
    OSNoiseModel, Provenance, RackPlacement, SystemProfile, save_profile,
)
from cloudnoise.model.switch_draws import SwitchDraws
from cloudnoise.output_files import write_npz
from cloudnoise.profiles.artifact.authors_inputs import (
    BANDWIDTH_FILE, LATENCY_FILE, OS_NOISE_FILE, effective_trace, gap_ps_per_byte, latency_ps, os_trace_ps,
)
from cloudnoise.profiles.artifact.compute import compute_rate
from cloudnoise.profiles.artifact.runs import candidates
from cloudnoise.profiles.authors_parameters import SOURCE, WITHOUT_STORED_RUN, authors_parameters, loggops_of
from cloudnoise.profiles.calibrate.assemble import RECORD, SystemParams, build_profile, read_params
from cloudnoise.profiles.paper import TABLE_I
from cloudnoise.profiles.reconstruct import base_profile

# A measured DGEMM below this share of the node's published peak is not a
# whole-node rate (see build_one) and the text's rate stays.
MIN_PEAK_SHARE = 0.10
ARTIFACT = "the paper's artifact data (DanieleDeSensi/cloud_noise_data, commit 8ecb821)"


@dataclass
class NetworkRun:
    """One placement's run: where from, and its samples (ps) and OS trace (ps)."""

    archive: Path
    provenance: str
    latency_ps: np.ndarray
    gap_ps: np.ndarray
    os_trace_ps: tuple[np.ndarray, np.ndarray] | None  # None: the run's ng_osnoise.out is empty


@dataclass
class Built:
    """What one profile was built from: part -> "data: ..." or "text: ...", or
    "none: ..." for a part with neither (then the profile is not written)."""

    name: str
    parts: dict[str, str] = field(default_factory=dict)

    @property
    def written(self) -> bool:
        return not any(v.startswith("none:") for v in self.parts.values())


def text_base(name: str, params: dict[str, SystemParams]) -> SystemProfile:
    """A system's text-based profile: the calibration's where it models the
    system, else the published parts and reconstructed LogGOPS without noise
    (the build gives those systems the artifact's)."""
    return build_profile(name, params[name]) if name in params else base_profile(name)


def network_run(artifact: Path, name: str, placement: str) -> NetworkRun | None:
    """The first stored run with network data for the system and placement (see runs.candidates)."""
    named, archives = candidates(artifact, name, placement)
    for archive in archives:
        try:
            files = run_files(archive, (LATENCY_FILE, BANDWIDTH_FILE, OS_NOISE_FILE))
        except CloudnoiseError:
            continue  # a run without network data (a collectives run, say)
        where = archive.relative_to(artifact).as_posix()
        if named is not None and archive == artifact / f"{named}.tar.xz":
            why = f"{where}, the run description.csv names for {placement} (Day)"
        else:
            why = (f"{where}, standing in for {named or 'no run'} that description.csv names for {placement} "
                   "(Day), which the stored copy lacks")
        lat = latency_ps(files[LATENCY_FILE], f"{where}: {LATENCY_FILE}")
        gap = gap_ps_per_byte(files[BANDWIDTH_FILE], f"{where}: {BANDWIDTH_FILE}")
        try:
            trace = os_trace_ps(files[OS_NOISE_FILE], f"{where}: {OS_NOISE_FILE}")
        except CloudnoiseError:
            trace = None  # an empty selfish-detour file (AWS's spread runs)
        return NetworkRun(archive, why, np.sort(lat), np.sort(gap), trace)
    return None


def _os_noise_model(run: NetworkRun, path: Path) -> tuple[OSNoiseModel, str]:
    """Writes the OS-noise trace the authors' simulator read of `run` to `path`
    (to the nearest ns); the profile's model of it and its provenance text."""
    assert run.os_trace_ps is not None
    starts, durations = effective_trace(*run.os_trace_ps)
    write_npz_trace(path, OSNoiseTrace(np.round(starts / 1000).astype(np.int64),
                                       np.round(durations / 1000).astype(np.int64)))
    text = (f"ng_osnoise.out of {run.provenance}, {ARTIFACT}: the selfish-detour runs as the authors' "
            "simulator's lookup reads their concatenation (cloudnoise.profiles.artifact.authors_inputs."
            "effective_trace), to the nearest ns")
    return OSNoiseModel(Provenance("measured", text), trace=path.name), text


def build_one(name: str, text: SystemProfile, artifact: Path, out: Path) -> tuple[SystemProfile, Built]:
    """One system's profile from the data where there is data, else its
    text-based reconstruction (`built.written` False: neither for a noise part)."""
    built = Built(name)
    compute = compute_rate(artifact, name)
    peak = text.compute.peak.flops().gflops if text.compute is not None and text.compute.peak is not None else None
    if compute is not None and peak is not None and compute.gflops < MIN_PEAK_SHARE * peak:
        # Alps's and Oracle HPC's DGEMM files in their network runs reach 1-3%
        # of the node's peak: a run on one or a few cores, not a node's rate.
        built.parts["compute"] = (f"text: the artifact's DGEMM ({compute.gflops:g} GFLOP/s) is below "
                                  f"{MIN_PEAK_SHARE:.0%} of the node's peak ({peak:g}): not a whole-node run")
    elif compute is not None:
        text = replace(text, compute=compute)
        built.parts["compute"] = "data: " + compute.provenance.source
    else:
        built.parts["compute"] = "text: no DGEMM run in the stored copy"
    near, far = authors_parameters(name, "same-rack"), authors_parameters(name, "different-racks")
    if near is None or far is None:
        built.parts["loggops"] = "text: the authors did not simulate this system"
        built.parts["noise"] = ("text: the authors did not simulate this system" if text.latency_noise is not None else
                                "none: the authors did not simulate this system and the record has no model of it: "
                                "not written")
        return text, built
    runs = {p: network_run(artifact, name, p) for p in ("same-rack", "different-racks")}
    if runs["same-rack"] is None and runs["different-racks"] is None:
        # No samples: the authors' rows at both rack distances, and the text's
        # noise at both. For the systems whose run the stored artifact lacks
        # (WITHOUT_STORED_RUN) that noise was calibrated around these rows
        # (profiles/reconstruct.py); for another one missing from `artifact`,
        # around the text's own reconstruction, and the note says so; where
        # the calibration has no model of the system, nothing is written.
        if text.latency_noise is None:
            built.parts["noise"] = (f"none: no network run of {name} in {artifact} and no text-based noise (the "
                                    "calibration models only the systems without a run in the paper's artifact): "
                                    "not written")
            return text, built
        around = ("calibrated around the authors' rows" if name in WITHOUT_STORED_RUN else
                  "reconstructed around the text's own LogGOPS, not these rows")
        note = f"no network run of {name} in {ARTIFACT}: the text's noise ({around}) at both placements"
        profile = replace(text, loggops=loggops_of(near),
                          different_racks=RackPlacement(loggops_of(far), text.latency_noise, text.bandwidth_noise,
                                                        note=note))
        built.parts["loggops"] = "data: " + SOURCE + " (both placements)"
        built.parts["noise"] = "text: " + note
        return profile, built
    # OS noise per placement, as the authors' scenarios take it: each placement's
    # own run's ng_osnoise.out; the same rack's (or, without one, the other
    # run's) is the node's, and a different-racks run with a trace of its own
    # carries it in the different-racks block.
    os_run = next((r for r in (runs["same-rack"], runs["different-racks"]) if r is not None and r.os_trace_ps),
                  None)
    if os_run is None and text.os_noise is None:
        built.parts["os_noise"] = ("none: the stored runs' ng_osnoise.out are empty and the calibration has no "
                                   f"OS noise model of {name}: not written")
        return text, built
    built.parts["loggops"] = "data: " + SOURCE
    sr = runs["same-rack"] or runs["different-racks"]
    dr = runs["different-racks"] or runs["same-rack"]
    assert sr is not None and dr is not None
    sr_why = sr.provenance if runs["same-rack"] else f"{sr.provenance} (no same-rack run stored: the different-racks one)"
    dr_why = dr.provenance if runs["different-racks"] else f"{dr.provenance} (no different-racks run stored: the same-rack one)"
    write_npz(out / f"{name}.npz", {
        "same_rack_latency_ps": sr.latency_ps, "same_rack_gap_ps": sr.gap_ps,
        "different_racks_latency_ps": dr.latency_ps, "different_racks_gap_ps": dr.gap_ps,
    })
    os_noise = text.os_noise
    if os_run is not None:
        os_noise, os_text = _os_noise_model(os_run, out / f"{name}-os.npz")
        built.parts["os_noise"] = "data: " + os_text
    else:
        built.parts["os_noise"] = "text: the stored runs' ng_osnoise.out are empty"
    dr_run = runs["different-racks"]
    dr_os = None
    same_run = dr_run is not None and os_run is not None and dr_run.archive == os_run.archive
    if dr_run is not None and not same_run and dr_run.os_trace_ps is not None:
        dr_os, dr_os_text = _os_noise_model(dr_run, out / f"{name}-os-different-racks.npz")
        built.parts["os_noise_different_racks"] = "data: " + dr_os_text
    else:
        why = ("no different-racks run stored" if dr_run is None else
               "the different-racks run is the same-rack one" if same_run else
               "the different-racks run's ng_osnoise.out is empty")
        built.parts["os_noise_different_racks"] = f"the node's (same-rack) OS noise: {why}"
    samples_text = (f"Netgauge latency (1 B) and bandwidth (16 MiB) round trips of {ARTIFACT}: same rack {sr_why}; "
                    f"different racks {dr_why}. Rows at positions 0-20 of every 1000 dropped, ps as the authors' "
                    "simulate.py (convert_noise) made them; scaled to the median L or G when simulated")
    switch = SwitchDraws(Provenance("measured", samples_text), nodes_per_switch=near.nodes_per_switch,
                         samples=f"{name}.npz",
                         note="the paper authors' simulator semantics: docs/profile-format.md, Switch draws")
    profile = replace(
        text, loggops=loggops_of(near), latency_noise=None, bandwidth_noise=None,
        os_noise=os_noise,
        different_racks=RackPlacement(
            loggops_of(far), os_noise=dr_os,
            note=(f"the authors' different-racks row; samples: {dr_why}; OS noise: "
                  + ("that run's" if dr_os is not None else built.parts["os_noise_different_racks"]))),
        switch_draws=switch,
    )
    built.parts["noise"] = "data: " + samples_text
    return profile, built


def build_profiles(artifact: Path, out: Path, record: Path, log: Callable[[str], None] | None = None) -> list[Built]:
    """Writes OUT/NAME.json (and its .npz files) for every system of the
    paper that has a noise model from the artifact or the record."""
    if not (artifact / "description.csv").is_file():
        raise CloudnoiseError(f"{artifact}: no description.csv here; give the paper artifact's folder "
                              "(the authors' cloud_noise_data)")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise CloudnoiseError(f"{out}: cannot write there ({err.strerror or err})") from None
    params = read_params(record)
    done = []
    for name in sorted(TABLE_I):
        if log:
            log(f"{name} ...")
        profile, built = build_one(name, text_base(name, params), artifact, out)
        if built.written:
            save_profile(profile, out / f"{name}.json")
        done.append(built)
    return done


def text_only_names() -> list[str]:
    """The built-in systems whose profile is the text-based one as a whole:
    the authors did not simulate them (no parameters of theirs), so the
    calibration models them."""
    from cloudnoise.profiles.registry import DATA_DIR

    return sorted(n for n in read_params(DATA_DIR / RECORD) if authors_parameters(n) is None)


def default_record() -> Path:
    """The committed calibration record the text-based parts come from."""
    from cloudnoise.profiles.registry import DATA_DIR

    return DATA_DIR / RECORD
