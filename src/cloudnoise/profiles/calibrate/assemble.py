"""From parameters to profiles: every system's noise models, labelled.

`SystemParams` holds one system's noise parameters (both rack distances) and
which of them the fit set (`fitted`: parameter -> the statements it was
fitted to). `build_profile` turns them, with the published parts and the
reconstructed LogGOPS (cloudnoise.profiles.reconstruct), into the profile
the data files hold. A noise model with a fitted parameter is labelled
`calibrated`, its source naming the targets; the others `reconstructed`,
their source naming the assumption and the sentence it rests on.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from cloudnoise.model.profile import NoiseModel, OSNoiseModel, RackPlacement, SystemProfile, save_profile
from cloudnoise.errors import CloudnoiseError
from cloudnoise.model.provenance import Provenance
from cloudnoise.profiles.calibrate import families as fam
from cloudnoise.profiles.calibrate.priors import PRIORS, bandwidth_params, latency_params, os_params
from cloudnoise.profiles.paper import TABLE_I
from cloudnoise.profiles.reconstruct import base_profile, figures_of, text_loggops

RECORD = "calibration.json"
FORMAT = "cloudnoise-calibration/2"  # /2: only the systems whose built-in noise is the text's


@dataclass(frozen=True)
class SystemParams:
    """One system's noise parameters and what was fitted."""

    latency: fam.LatencyParams
    bandwidth: fam.BandwidthParams
    os: fam.OSParams
    latency_dr: fam.LatencyParams | None = None
    bandwidth_dr: fam.BandwidthParams | None = None
    fitted: dict[str, str] = field(default_factory=dict)  # "latency.tail_scale_ns" -> "statement ids"

    def rounded(self) -> SystemParams:
        return replace(
            self, latency=self.latency.rounded(), bandwidth=self.bandwidth.rounded(), os=self.os.rounded(),
            latency_dr=None if self.latency_dr is None else self.latency_dr.rounded(),
            bandwidth_dr=None if self.bandwidth_dr is None else self.bandwidth_dr.rounded(),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "latency": asdict(self.latency), "bandwidth": asdict(self.bandwidth), "os": asdict(self.os),
            "latency_dr": None if self.latency_dr is None else asdict(self.latency_dr),
            "bandwidth_dr": None if self.bandwidth_dr is None else asdict(self.bandwidth_dr),
            "fitted": dict(sorted(self.fitted.items())),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SystemParams:
        return cls(
            fam.LatencyParams(**d["latency"]), fam.BandwidthParams(**d["bandwidth"]), fam.OSParams(**d["os"]),
            None if d.get("latency_dr") is None else fam.LatencyParams(**d["latency_dr"]),
            None if d.get("bandwidth_dr") is None else fam.BandwidthParams(**d["bandwidth_dr"]),
            dict(d.get("fitted", {})),
        )


def min_latency_ns(name: str, placement: str = "same-rack") -> float:
    same, dr, _ = figures_of(name)
    return (same if placement == "same-rack" else dr)[0] * 1000.0


def initial_params(name: str, done: dict[str, SystemParams]) -> SystemParams:
    """A system's same-rack parameters from its priors; `like` references take
    another system's (already calibrated) tail, drops or long detours; the tail
    relative to the minimum latency."""
    prior = PRIORS[name]
    lat = latency_params(prior.latency, min_latency_ns(name))
    fitted: dict[str, str] = {}
    if prior.latency.like:
        ref = done[prior.latency.like].latency
        lat = replace(ref, tail_scale_ns=ref.tail_scale_ns * min_latency_ns(name) / min_latency_ns(prior.latency.like))
    drops = prior.drops
    bw = capped_drops(bandwidth_params(drops, done[drops.like].bandwidth if drops.like else None), mean_fraction(name))
    os_p = os_params(prior.os)
    if prior.os.long_like:
        ref_os = done[prior.os.long_like].os
        os_p = replace(os_p, long_rate=ref_os.long_rate, long_median_ns=ref_os.long_median_ns)
    for part, like in (("latency", prior.latency.like), ("bandwidth", drops.like), ("os", prior.os.long_like)):
        if like:
            for k, v in done[like].fitted.items():
                if k.startswith(part + "."):
                    fitted[k] = v if v.startswith("as ") else f"as {like}: {v}"
    return SystemParams(lat, bw, os_p, fitted=fitted)


def with_placements(name: str, params: SystemParams) -> SystemParams:
    """`params` with the different-racks block derived from its same-rack models
    where Table II has different-racks figures: the same tail relative to the
    minimum latency, and the same drops (capped to that placement's mean)."""
    _, dr, _ = figures_of(name)
    if dr is None:
        return replace(params, latency_dr=None, bandwidth_dr=None)
    lat = params.latency
    lat_dr = replace(lat, tail_scale_ns=lat.tail_scale_ns * (dr[0] * 1000.0 / min_latency_ns(name)))
    return replace(params, latency_dr=lat_dr,
                   bandwidth_dr=capped_drops(params.bandwidth, mean_fraction(name, "different-racks")))


def mean_fraction(name: str, placement: str = "same-rack") -> float:
    """Table II's mean / max bandwidth of a system at a placement."""
    same, dr, _ = figures_of(name)
    fig = same if placement == "same-rack" else dr
    return fig[3] / fig[2]


CAP = 0.8  # drops may take at most this share of Table II's mean deficit


def capped_drops(bw: fam.BandwidthParams, mean: float) -> fam.BandwidthParams:
    """Drops borrowed from another system or placement, their weight capped so
    that they take at most 80% of Table II's mean deficit 1 - mean / max (the
    body keeps the rest): Table II's cells win over a borrowed weight."""
    if bw.drop_weight <= 0:
        return bw
    depth = 1.0 - 0.5 * (bw.drop_low + bw.drop_high)
    limit = CAP * (1.0 - mean) / depth
    return bw if bw.drop_weight <= limit else replace(bw, drop_weight=fam.round_sig(limit, fam.DIGITS))


def _fitted_text(params: SystemParams, part: str) -> str:
    items = [f"{k.split('.', 1)[1]} <- {v}" for k, v in sorted(params.fitted.items()) if k.startswith(part + ".")]
    return "; ".join(items)


def _kind(params: SystemParams, part: str) -> str:
    return "calibrated" if any(k.startswith(part + ".") for k in params.fitted) else "reconstructed"


def build_profile(name: str, params: SystemParams) -> SystemProfile:
    """The built-in profile of `name` with these noise parameters."""
    base = base_profile(name)
    prior = PRIORS[name]
    same, dr, where = figures_of(name)
    p = params.rounded()
    see = f"see {RECORD}"

    def latency_model(lat: fam.LatencyParams, fig: tuple, placement: str) -> NoiseModel:
        mean_excess = (fig[1] - fig[0]) * 1000.0
        fitted = _fitted_text(params, "latency")
        text = (
            f"Mixture: lognormal body (sigma {lat.body_sigma:g}, median solved so the mean excess is {where}'s "
            f"{placement} mean - min latency = {mean_excess:.4g} ns) + Pareto tail on the top 0.1% (Fig. 9 plots the "
            f"largest 0.1%) from {lat.tail_scale_ns:.4g} ns ({lat.tail_scale_ns / (fig[0] * 1000):.3g} x min "
            f"latency), alpha {lat.tail_alpha:.4g}"
            + (f" + spikes: weight {lat.spike_weight:.4g}, lognormal median {lat.spike_median_ns / 1e6:.4g} ms, sigma "
               f"{lat.spike_sigma:.4g}" if lat.spike_weight else "")
            + f". {prior.latency.why}"
            + (f". Fitted: {fitted} ({see})" if fitted else "")
        )
        return NoiseModel(Provenance(_kind(params, "latency"), text), spec=fam.latency_spec(lat, mean_excess),
                          note="excess over L per message, ns")

    def bandwidth_model(bw: fam.BandwidthParams, fig: tuple, placement: str, why: str) -> NoiseModel:
        ratio = fig[3] / fig[2]
        fitted = _fitted_text(params, "bandwidth")
        text = (
            f"Uniform body [b, 1] (b solved so the mean fraction is {where}'s {placement} mean / max bandwidth = "
            f"{ratio:.5g})"
            + (f" + drops: weight {bw.drop_weight:.4g} at {bw.drop_low:g}-{bw.drop_high:g} of the peak"
               if bw.drop_weight else " (no drops)")
            + (f", persisting in episodes of each node lasting up to {bw.episode_max_s:g} s (share of samples)"
               if bw.drop_weight and bw.episode_max_s else "")
            + f". {why}" + (f". Fitted: {fitted} ({see})" if fitted else "")
        )
        return NoiseModel(Provenance(_kind(params, "bandwidth"), text), spec=fam.bandwidth_spec(bw, ratio),
                          episodes=fam.bandwidth_episodes_spec(bw, ratio),
                          note="fraction of the max bandwidth per message; G is scaled by 1 / fraction")

    latency = latency_model(p.latency, same, "same rack")
    bandwidth = bandwidth_model(p.bandwidth, same, "same rack", prior.drops.why)
    fitted_os = _fitted_text(params, "os")
    o = p.os
    os_text = (
        f"Poisson detours: {o.short_rate:g}/s short ones (lognormal, median {o.short_median_ns / 1000:g} us) and "
        f"{o.long_rate:g}/s long ones (median {o.long_median_ns / 1000:.4g} us), sigma {o.sigma:g}; Fig. 8 class: "
        f"{prior.os.frequency} frequency, {prior.os.intensity} intensity (numeric levels assumed, see "
        f"cloudnoise/profiles/calibrate/priors.py). {prior.os.why}" + (f". Fitted: {fitted_os} ({see})" if fitted_os else "")
    )
    os_noise = OSNoiseModel(Provenance(_kind(params, "os"), os_text), synthetic=fam.os_spec(o))
    different = None
    if dr is not None and p.latency_dr is not None and p.bandwidth_dr is not None:
        row = TABLE_I[name]
        dr_loggops = text_loggops(name, "different-racks")
        assert dr_loggops is not None
        different = RackPlacement(
            loggops=dr_loggops,
            latency_noise=latency_model(p.latency_dr, dr, "different racks"),
            bandwidth_noise=bandwidth_model(p.bandwidth_dr, dr, "different racks", "as same rack"),
            note=f"{row.provider} {row.kind} with the two nodes on different racks (Table II's second block)",
        )
    return replace(base, latency_noise=latency, bandwidth_noise=bandwidth, os_noise=os_noise, different_racks=different)


def write_profiles(directory: Path, params: dict[str, SystemParams]) -> list[Path]:
    """Writes every built-in profile file; returns the paths."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in sorted(params):
        path = directory / f"{name}.json"
        save_profile(build_profile(name, params[name]), path)
        paths.append(path)
    return paths


def read_params(record_path: Path) -> dict[str, SystemParams]:
    """The parameters a calibration record holds (a one-line error for a file
    that is not one, or one of another format)."""
    try:
        data = json.loads(record_path.read_text(encoding="utf-8"))
        if data.get("format") != FORMAT:
            raise ValueError(f"format {data.get('format')!r}, not {FORMAT!r}: make it again with "
                             "`cloudnoise profiles calibrate`")
        params = {name: SystemParams.from_dict(d) for name, d in data["parameters"].items()}
        unknown = sorted(set(params) - set(PRIORS))
        if unknown:
            raise ValueError(f"the calibration models no system {', '.join(unknown)}")
        return params
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        raise CloudnoiseError(f"{record_path}: not a calibration record ({err})") from None
