"""A simulation's parameters and noise: from a profile, LogGOPSim's defaults and explicit overrides.

Parameters: the profile's (or LogGOPSim's defaults), then any of L, o, g, G,
O, S given explicitly. Noise: the profile's, then an explicit OS-noise trace
or spec and latency/bandwidth distributions replace its parts. The Python API
and every command resolve them here, so a profile means the same everywhere.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cloudnoise.errors import CloudnoiseError
from cloudnoise.simulation.params import DEFAULTS, LogGOPS
from cloudnoise.simulation.variants import VARIANTS
from cloudnoise.units import parse_time_ps

if TYPE_CHECKING:
    from cloudnoise.model.profile import SystemProfile
    from cloudnoise.simulation.noise import NoiseSetup

ParamText = str | float | int | None


def load_system(profile: str | os.PathLike[str] | SystemProfile) -> SystemProfile:
    """A profile object, a built-in profile's name, or a profile file."""
    from cloudnoise.model.profile import SystemProfile
    from cloudnoise.profiles.registry import resolve_profile

    return profile if isinstance(profile, SystemProfile) else resolve_profile(profile)


def resolve_params(profile: SystemProfile | None, overrides: Mapping[str, ParamText]) -> LogGOPS:
    """The profile's LogGOPS (else LogGOPSim's defaults) with the given overrides (None keeps)."""
    given = {k: str(v) for k, v in overrides.items() if v is not None}
    if profile is not None and profile.switch_draws is not None and {"L", "G"} & set(given):
        raise CloudnoiseError(
            f"{profile.name}: its messages draw L and G from near and far sets (switch draws, "
            "docs/profile-format.md), which an explicit L or G cannot replace; give L and G without --profile"
        )
    if profile is not None:
        return LogGOPS.from_profile(profile).with_overrides(**given)
    return LogGOPS.parse(**{k: given.get(k, DEFAULTS[k]) for k in DEFAULTS})


def resolve_noise(
    profile: SystemProfile | None,
    seed: int,
    *,
    os_noise: str | None = None,
    os_noise_cosched: bool = False,
    os_noise_phase: str | int | None = None,
    latency_noise: str | None = None,
    bandwidth_noise: str | None = None,
    bandwidth_episodes: str | None = None,
) -> NoiseSetup:
    """The profile's noise (none without one), with the parts given explicitly replaced.

    `os_noise` is a selfish-detour trace file or a periodic/random spec;
    `latency_noise` and `bandwidth_noise` are sample files or distribution specs;
    `bandwidth_episodes` a spec of drops that persist in time, or "none" to drop the profile's."""
    # Imported here: the noise models need scipy, which a noiseless run does without.
    from cloudnoise.simulation.noise import (
        NoiseSetup, load_bandwidth_episodes, load_distribution, load_os_noise, noise_from_profile,
    )

    noise = noise_from_profile(profile, seed) if profile is not None else NoiseSetup()
    dropped = bandwidth_episodes is not None and bandwidth_episodes.strip().lower() == "none"
    if noise.switch_quiet is not None and (latency_noise or bandwidth_noise or (bandwidth_episodes and not dropped)):
        raise CloudnoiseError(
            f"{noise.switch_source.split(':')[0]}: its network noise is its switch draws' samples "
            "(docs/profile-format.md); --latency-noise, --bandwidth-noise and --bandwidth-episodes go without it"
        )
    if os_noise:
        noise.os_trace = load_os_noise(os_noise, seed)
        noise.os_source = os_noise
    noise.os_cosched = bool(os_noise_cosched)
    if os_noise_phase is not None:
        noise.os_phase_ns = parse_time_ps(os_noise_phase, "--os-noise-phase") // 1000
    if latency_noise:
        noise.latency = load_distribution(latency_noise, "--latency-noise")
        noise.latency_source = latency_noise
    if bandwidth_noise:
        noise.bandwidth = load_distribution(bandwidth_noise, "--bandwidth-noise")
        noise.bandwidth_source = bandwidth_noise
    if bandwidth_episodes and bandwidth_episodes.strip().lower() == "none":
        noise.bandwidth_episodes, noise.episodes_source = None, ""
    elif bandwidth_episodes:
        noise.bandwidth_episodes = load_bandwidth_episodes(bandwidth_episodes)
        noise.episodes_source = bandwidth_episodes
    return noise


def resolve_setup(opts: dict[str, Any]) -> tuple[LogGOPS, NoiseSetup]:
    """The parameters and noise of a command's options (`profile`, `placement`,
    `L_` ... `S_`, `seed`, the noise options): the profile's, then the explicit
    ones. Records what the profile brings in ``opts`` (`profile_used`,
    `compute_rate`, `profile_core_latency_ns`)."""
    system = load_system(opts["profile"]) if opts.get("profile") else None
    if system is not None:
        if opts.get("placement"):
            system = system.at(opts["placement"])
        opts["profile_used"] = system.describe_use()
        opts["compute_rate"] = system.compute_rate()
        # the machine state the profile was measured in (validate compares its own run with it)
        opts["profile_core_latency_ns"] = system.hardware.core_latency_ns if system.hardware else None
    elif opts.get("placement"):
        raise CloudnoiseError("--placement goes with --profile")
    params = resolve_params(system, {k: opts.get(f"{k}_") for k in DEFAULTS})
    noise = resolve_noise(
        system, opts["seed"], os_noise=opts.get("os_noise"), os_noise_cosched=bool(opts.get("os_noise_cosched")),
        os_noise_phase=opts.get("os_noise_phase"), latency_noise=opts.get("latency_noise"),
        bandwidth_noise=opts.get("bandwidth_noise"), bandwidth_episodes=opts.get("bandwidth_episodes"),
    )
    return params, noise


def parse_variants(text: str | None, noise: NoiseSetup) -> tuple[list[str], str]:
    """The variants to run and the primary one (reported at the JSON's top level).

    Named variants run in the order given, the first is primary. Without
    --noise, all the noise given is primary and the noiseless baseline runs
    beside it (same seed), so the summary shows what noise adds."""
    if not text:
        primary = noise.default_variants()[0]
        return (["none", primary] if primary != "none" else ["none"]), primary
    variants = [v.strip() for v in text.split(",") if v.strip()]
    if not variants:
        raise CloudnoiseError(f"--noise: no variant in {text!r} (choose from {', '.join(VARIANTS)})")
    noise.check_variants(variants)
    variants = list(dict.fromkeys(variants))
    return variants, variants[0]
