"""The noise a simulation injects, and the paper's four variants of it.

Sec. V-A of the paper: OS noise from a selfish-detour trace, and per message
a latency excess and a bandwidth drawn from distributions measured on the
system. `NoiseSetup` gathers those sources (from files, spec strings or a
system profile) and builds the engine's `NoiseModel` for a variant:

* `none`: LogGOPS alone;
* `os`: OS noise only;
* `network`: latency and bandwidth noise only;
* `both`: everything.

All variants of one run use the same seed, so repetition r of every variant
sees the same trace offsets and the same sequence of message draws (common
random numbers): differences between variants come from the noise, not from
the luck of the draw.

Noise in time follows one rule: repetition r reads its own realization,
a function of (seed, r) alone. A model of stalls or drops in time (a
profile's `stalls` and `episodes`, --bandwidth-episodes) goes to the engine
as a process that draws each repetition's table (noise/stall_process.hpp,
noise/episode_process.hpp), so the repetitions of a run are independent
draws of it. A table (a measured OS-noise trace, or a table given here for
a test) serves every repetition, each reading it from offsets drawn from
(seed, r); a synthetic OS-noise spec is expanded into such a trace once per
run, long enough that those offsets are independent draws
(`SyntheticOSNoise.representative_length_ns`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from cloudnoise import _engine
from cloudnoise.errors import CloudnoiseError, shown

if TYPE_CHECKING:  # the models import scipy; loaded only when noise is asked for
    from cloudnoise.model.bandwidth_episodes import BandwidthEpisodes, EpisodeTable
    from cloudnoise.model.distributions import Distribution
    from cloudnoise.model.latency_episodes import LatencyEpisodes, StallTable
    from cloudnoise.model.latency_levels import LatencyLevels
    from cloudnoise.model.latency_state import LatencyState
    from cloudnoise.model.os_noise import OSNoiseTrace
    from cloudnoise.model.profile import SystemProfile
    from cloudnoise.model.switch_draws import SwitchSets

from cloudnoise.simulation.variants import VARIANTS  # noqa: E402  (one definition)

@dataclass
class NoiseSetup:
    """Noise sources of a simulation; any may be absent."""

    os_trace: OSNoiseTrace | None = None
    os_cosched: bool = False
    os_phase_ns: int | None = None  # fixed trace offset for every rank, instead of drawn ones
    latency: Distribution | None = None  # excess over L per message, ns
    bandwidth: Distribution | None = None  # fraction of peak bandwidth, (0, 1]
    # drops that persist in time, per sending node (model/bandwidth_episodes.py):
    # a model (each repetition draws its own table) or one table for every repetition
    bandwidth_episodes: BandwidthEpisodes | EpisodeTable | None = None
    # latency stalls that come in time, per sending host (model/latency_episodes.py),
    # a model or a table as the episodes; shared: one clock for every host
    latency_stalls: LatencyEpisodes | StallTable | None = None
    latency_stalls_shared: bool = False
    latency_stalls_hosts: float = 1.0  # the share of hosts that stall at all
    latency_stalls_max_bytes: int | None = None  # only messages up to this size wait for a stall (None: all)
    # latency levels that persist in time, per sending host (model/latency_levels.py)
    latency_levels: LatencyLevels | None = None
    # a latency noise state per sending host (model/latency_state.py): moves the per-message draws
    latency_state: LatencyState | None = None
    # The paper authors' semantics (model/switch_draws.py): near/far sets of
    # one value each (every variant: the network itself) and the measured
    # sets (the network-noise variants; None without samples).
    switch_quiet: SwitchSets | None = None
    switch_noisy: SwitchSets | None = None
    os_source: str = ""
    latency_source: str = ""
    bandwidth_source: str = ""
    episodes_source: str = ""
    stalls_source: str = ""
    levels_source: str = ""
    state_source: str = ""
    switch_source: str = ""

    @property
    def has_os(self) -> bool:
        return self.os_trace is not None

    @property
    def has_network(self) -> bool:
        return (self.latency is not None or self.bandwidth is not None or self.bandwidth_episodes is not None
                or self.latency_stalls is not None or self.latency_levels is not None
                or self.switch_noisy is not None)

    def default_variants(self) -> list[str]:
        """What to run when the user names no variant: everything given."""
        if self.has_os and self.has_network:
            return ["both"]
        if self.has_os:
            return ["os"]
        if self.has_network:
            return ["network"]
        return ["none"]

    def draws(self, variant: str) -> bool:
        """Whether the engine's model for `variant` draws anything at random
        (an OS-noise offset, a latency, a bandwidth, an episode offset, a
        switch sample from a set of more than one). A model that draws
        nothing gives every repetition the same result, whatever the seed
        and the repetition: the engine is deterministic (the same rules as
        `engine_model`, without building the model)."""
        if variant in ("os", "both") and self.os_trace is not None:
            return True
        sets = self.switch_noisy if variant in ("network", "both") and self.switch_noisy else self.switch_quiet
        if sets is not None and sets.random:
            return True
        return variant in ("network", "both") and (
            self.latency is not None or self.bandwidth is not None or self.bandwidth_episodes is not None
            or self.latency_stalls is not None or self.latency_levels is not None
        )

    def check_variants(self, variants: list[str]) -> None:
        for v in variants:
            if v not in VARIANTS:
                raise CloudnoiseError(f"--noise: unknown variant {v!r} (choose from {', '.join(VARIANTS)})")
            if v in ("os", "both") and not self.has_os:
                raise CloudnoiseError(f"--noise {v} needs OS noise: give --os-noise FILE|SPEC or --profile")
            if v in ("network", "both") and not self.has_network:
                raise CloudnoiseError(
                    f"--noise {v} needs network noise: give --latency-noise/--bandwidth-noise or --profile"
                )

    def engine_model(self, variant: str) -> _engine.NoiseModel:
        """The engine's noise for one variant (tables converted to ps)."""
        model = _engine.NoiseModel()
        if variant in ("os", "both") and self.os_trace is not None:
            model.os = _engine_trace(self.os_trace)
            model.os_cosched = self.os_cosched
            if self.os_phase_ns is not None:
                model.os_phase_ps = int(self.os_phase_ns) * 1000
        sets = self.switch_noisy if variant in ("network", "both") and self.switch_noisy else self.switch_quiet
        if sets is not None:
            model.switch_draws = _switch_draws(sets)
            if self.switch_quiet is not None:  # what a critical path counts as the network's own L and G
                model.switch_nominal = model.switch_draws if sets is self.switch_quiet else _switch_draws(self.switch_quiet)
        if variant in ("network", "both"):
            if self.latency is not None:
                p, v = self.latency.to_quantile_table()
                model.latency_excess_ps = _engine.QuantileTable(
                    np.ascontiguousarray(p, dtype=np.float64), np.ascontiguousarray(v * 1000.0, dtype=np.float64)
                )
            if self.bandwidth is not None:
                p, v = self.bandwidth.to_quantile_table()
                model.bandwidth_fraction = _engine.QuantileTable(
                    np.ascontiguousarray(p, dtype=np.float64), np.ascontiguousarray(v, dtype=np.float64)
                )
            if self.bandwidth_episodes is not None:
                if _is_table(self.bandwidth_episodes):
                    model.bandwidth_episodes = _engine_episodes(self.bandwidth_episodes)
                else:
                    model.episode_process = _engine_episode_process(self.bandwidth_episodes)
            if self.latency_stalls is not None:
                if _is_table(self.latency_stalls):
                    model.latency_stalls = _engine_stalls(self.latency_stalls)
                else:
                    model.stall_process = _engine_stall_process(self.latency_stalls)
                model.latency_stalls_shared = self.latency_stalls_shared
                model.latency_stalls_hosts = self.latency_stalls_hosts
                if self.latency_stalls_max_bytes is not None:
                    model.latency_stalls_max_bytes = self.latency_stalls_max_bytes
            if self.latency_levels is not None:
                model.level_process = _engine_level_process(self.latency_levels)
                model.latency_levels_shared = self.latency_levels.shared
            if self.latency_state is not None and self.latency is not None:
                model.latency_state_process = _engine_state_process(self.latency_state)
                model.latency_state_weight = self.latency_state.weight
                model.latency_state_part = self.latency_state.part
                model.latency_state_split = self.latency_state.split
                if self.latency_state.part == "both":
                    model.latency_state_tail_process = _engine_state_process(self.latency_state,
                                                                             self.latency_state.tail_hold_ns)
                    model.latency_state_tail_weight = self.latency_state.tail_weight
        return model

    def describe(self) -> dict[str, str | bool | None]:
        return {
            "os_noise": self.os_source or None,
            "os_noise_cosched": self.os_cosched,
            "os_noise_phase_ns": self.os_phase_ns,
            "latency_noise": self.latency_source or None,
            "bandwidth_noise": self.bandwidth_source or None,
            "bandwidth_episodes": self.episodes_source or None,
            "latency_stalls": self.stalls_source or None,
            "latency_levels": self.levels_source or None,
            "latency_state": self.state_source or None,
            "switch_draws": self.switch_source or None,
        }


def noise_from_profile(profile: SystemProfile, seed: int) -> NoiseSetup:
    """The noise a system profile describes (synthetic OS noise expanded
    with a generator seeded from `seed`; stalls and episodes as models, drawn
    by the engine for each repetition)."""
    from cloudnoise.model.os_noise import SyntheticOSNoise

    setup = NoiseSetup()
    source = profile.os_noise_source()
    if isinstance(source, SyntheticOSNoise):
        try:
            setup.os_trace = source.trace(source.representative_length_ns(), np.random.default_rng([seed, 0x05]))
        except CloudnoiseError as err:
            raise CloudnoiseError(f"{profile.where}: os_noise: {err}", err.exit_code) from None
        setup.os_source = f"{profile.name}: {source.spec()}"
    elif source is not None:
        setup.os_trace = source
        setup.os_source = f"{profile.name}: trace"
    if profile.switch_draws is not None:
        # The authors' semantics replace the per-message distributions: the
        # measured samples are the network noise (model/switch_draws.py).
        from cloudnoise.simulation.params import LogGOPS

        params = LogGOPS.from_profile(profile)
        setup.switch_quiet = profile.switch_sets(params.L_ps, params.G_fs, with_noise=False)
        if profile.switch_draws.samples is not None:
            setup.switch_noisy = profile.switch_sets(params.L_ps, params.G_fs, with_noise=True)
        shadowed = check_shadowed_by_switch_draws(profile)
        setup.switch_source = (f"{profile.name}: switch draws, {profile.switch_draws.nodes_per_switch} nodes per "
                               f"switch, {'measured samples' if setup.switch_noisy else 'no samples'}"
                               + (f" (they take precedence over its {' and '.join(shadowed)}, not used)"
                                  if shadowed else ""))
        return setup
    setup.latency = profile.latency_distribution()
    if setup.latency is not None:
        setup.latency_source = f"{profile.name}: {setup.latency.spec()}"
    setup.bandwidth = profile.bandwidth_distribution()
    if setup.bandwidth is not None:
        setup.bandwidth_source = f"{profile.name}: {setup.bandwidth.spec()}"
    episodes = profile.bandwidth_episodes()
    if episodes is not None:
        try:
            episodes.check_table()
        except CloudnoiseError as err:
            raise CloudnoiseError(f"{profile.where}: bandwidth_noise.episodes: {err}", err.exit_code) from None
        setup.bandwidth_episodes = episodes
        setup.episodes_source = f"{profile.name}: {episodes.spec()}"
    stalls = profile.latency_episodes()
    if stalls is not None:
        try:
            stalls.check_table()
        except CloudnoiseError as err:
            raise CloudnoiseError(f"{profile.where}: latency_noise.stalls: {err}", err.exit_code) from None
        setup.latency_stalls = stalls
        setup.latency_stalls_shared = stalls.shared
        setup.latency_stalls_hosts = stalls.hosts
        setup.latency_stalls_max_bytes = stalls.max_bytes
        setup.stalls_source = f"{profile.name}: {stalls.spec()}"
    levels = profile.latency_levels()
    if levels is not None:
        setup.latency_levels = levels
        setup.levels_source = f"{profile.name}: {levels.spec()}"
    state = profile.latency_state()
    if state is not None and setup.latency is not None:  # it moves the per-message draws: none, nothing to move
        setup.latency_state = state
        setup.state_source = f"{profile.name}: {state.spec()}"
    return setup


def check_shadowed_by_switch_draws(profile: SystemProfile) -> list[str]:
    """The network-noise parts a profile with switch draws also holds, checked as if
    they ran (a latency sample that would make a message arrive before its send is refused
    there too), though the switch draws take precedence over them; returns their names,
    for the source to say so."""
    parts = []
    checks = (("latency_noise", profile.latency_noise,
               (profile.latency_distribution, profile.latency_episodes, profile.latency_levels,
                profile.latency_state)),
              ("bandwidth_noise", profile.bandwidth_noise, (profile.bandwidth_distribution, profile.bandwidth_episodes)))
    for name, part, readers in checks:
        if part is None:
            continue
        try:
            for read in readers:
                found = read()
                if hasattr(found, "check_table"):  # episodes or stalls: checked as a run checks them
                    found.check_table()
        except CloudnoiseError as err:
            raise CloudnoiseError(f"{err} (switch_draws take precedence over {name} in simulations, but every part "
                                  f"of a profile must be valid: fix {name} or remove it)", err.exit_code) from None
        parts.append(name)
    return parts


def load_bandwidth_episodes(text: str) -> BandwidthEpisodes:
    """--bandwidth-episodes: a spec (`rate=..,duration=..,fraction=..`), drawn by the engine per repetition."""
    from cloudnoise.model.bandwidth_episodes import parse_bandwidth_episodes

    try:
        episodes = parse_bandwidth_episodes(text)
        episodes.check_table()
    except CloudnoiseError as err:
        raise CloudnoiseError(f"--bandwidth-episodes: {err}", err.exit_code) from None
    return episodes


def _is_table(part: object) -> bool:
    """Whether a part in time is a table (every repetition reads it) rather than a model."""
    return hasattr(part, "starts_ns")


def _quantiles_ps(dist: Distribution, scale: float = 1000.0) -> _engine.QuantileTable:
    """A distribution of times in ns as the engine's quantile table in ps (scale 1: as is)."""
    p, v = dist.to_quantile_table()
    return _engine.QuantileTable(np.ascontiguousarray(p, dtype=np.float64),
                                 np.ascontiguousarray(v * scale, dtype=np.float64))


def _engine_episode_process(episodes: BandwidthEpisodes) -> _engine.EpisodeProcess:
    try:
        return _engine.EpisodeProcess(episodes.mean_quiet_ns() * 1000.0, 1e12 / episodes.rate_hz,
                                      _quantiles_ps(episodes.duration),
                                      _quantiles_ps(episodes.fraction, 1.0),
                                      episodes.representative_period_ns() * 1000)
    except ValueError as err:
        raise CloudnoiseError(f"bandwidth episodes unusable: {err}") from None


def _engine_stall_process(stalls: LatencyEpisodes) -> _engine.StallProcess:
    period_ps = stalls.representative_period_ns() * 1000
    try:
        if stalls.periodic:
            assert stalls.period_ns is not None
            return _engine.StallProcess.periodic(max(1, round(stalls.period_ns)) * 1000, _quantiles_ps(stalls.stall),
                                                 period_ps)
        if stalls.recurring:
            assert stalls.gap is not None
            return _engine.StallProcess.recurring(stalls.mean_cycle_ns() * 1000.0, _quantiles_ps(stalls.stall),
                                                  _quantiles_ps(stalls.gap), period_ps)
        assert stalls.duration is not None and stalls.gap is not None
        return _engine.StallProcess.bursty(stalls.mean_quiet_ns() * 1000.0,
                                           (stalls.mean_quiet_ns() + stalls.mean_episode_ns()) * 1000.0,
                                           _quantiles_ps(stalls.duration),
                                           _quantiles_ps(stalls.stall), _quantiles_ps(stalls.gap), period_ps)
    except ValueError as err:
        raise CloudnoiseError(f"latency stalls unusable: {err}") from None


LEVEL_HOLDS_PER_TABLE = 500  # a level table's period: this many mean holds (more where more hosts read it)


def _engine_level_process(levels: LatencyLevels) -> _engine.LevelProcess:
    period_ps = int(min(LEVEL_HOLDS_PER_TABLE * levels.hold_ns, 1e14)) * 1000
    try:
        return _engine.LevelProcess(levels.hold_ns * 1000.0, _quantiles_ps(levels.level), max(1, period_ps))
    except ValueError as err:
        raise CloudnoiseError(f"latency levels unusable: {err}") from None


def _engine_state_process(state: LatencyState, hold_ns: float | None = None) -> _engine.LevelProcess:
    """The state's process: standard normal scores, in millionths (the level table's integers),
    holding an exponential time each (`hold_ns`, default the state's hold; the tail's own for
    part=both)."""
    from scipy.stats import norm

    hold = state.hold_ns if hold_ns is None else hold_ns
    p = np.linspace(0.0, 1.0, 4097)
    z = norm.ppf(np.clip(p, 1e-9, 1.0 - 1e-9)) * 1e6
    period_ps = int(min(LEVEL_HOLDS_PER_TABLE * hold, 1e14)) * 1000
    try:
        return _engine.LevelProcess(hold * 1000.0, _engine.QuantileTable(p, np.ascontiguousarray(z)),
                                    max(1, period_ps))
    except ValueError as err:
        raise CloudnoiseError(f"latency state unusable: {err}") from None


def _engine_episodes(table: EpisodeTable) -> _engine.BandwidthEpisodes:
    try:
        return _engine.BandwidthEpisodes(
            np.ascontiguousarray(table.starts_ns * 1000, dtype=np.int64),
            np.ascontiguousarray(table.ends_ns * 1000, dtype=np.int64),
            np.ascontiguousarray(table.fractions, dtype=np.float64),
            int(table.period_ns) * 1000,
        )
    except ValueError as err:
        raise CloudnoiseError(f"bandwidth episodes unusable: {err}") from None


def _engine_stalls(table: StallTable) -> _engine.LatencyStalls:
    try:
        return _engine.LatencyStalls(
            np.ascontiguousarray(table.starts_ns * 1000, dtype=np.int64),
            np.ascontiguousarray(table.ends_ns * 1000, dtype=np.int64),
            int(table.period_ns) * 1000,
        )
    except ValueError as err:
        raise CloudnoiseError(f"latency stalls unusable: {err}") from None


def _switch_draws(sets: SwitchSets) -> _engine.SwitchDraws:
    return _engine.SwitchDraws(sets.near_L_ps, sets.near_G_fs, sets.far_L_ps, sets.far_G_fs, sets.nodes_per_switch)


def _engine_trace(trace: OSNoiseTrace) -> _engine.OsNoiseTrace:
    starts = np.ascontiguousarray(np.asarray(trace.starts, dtype=np.int64) * 1000)
    durations = np.ascontiguousarray(np.asarray(trace.durations, dtype=np.int64) * 1000)
    try:
        return _engine.OsNoiseTrace(starts, durations)
    except ValueError as err:
        raise CloudnoiseError(f"OS noise trace unusable: {err}") from None


def load_os_noise(text: str, seed: int) -> OSNoiseTrace:
    """A trace file, or a synthetic spec (`periodic:...`, `random:...`)
    expanded to a trace with a generator seeded from `seed`."""
    from cloudnoise.model.os_noise import SyntheticOSNoise, parse_os_noise_spec, read_trace

    try:
        if Path(text).exists():
            trace = read_trace(text)
        elif text.split(":", 1)[0] in ("periodic", "random"):
            synthetic: SyntheticOSNoise = parse_os_noise_spec(text)
            trace = synthetic.trace(synthetic.representative_length_ns(), np.random.default_rng([seed, 0x05]))
        else:
            raise CloudnoiseError(
                f"{shown(text)} is neither a trace file nor a spec "
                "(periodic:frequency=HZ,duration=T or random:rate=PER_S,duration=DIST)"
            )
    except CloudnoiseError as err:
        raise CloudnoiseError(f"--os-noise: {err}", err.exit_code) from None
    if len(trace) < 2:
        raise CloudnoiseError(f"--os-noise: {shown(text)}: a trace needs at least two detours")
    return trace


def load_distribution(text: str, what: str) -> Distribution:
    """A samples file or a parametric spec for --latency-noise or --bandwidth-noise,
    every value it can draw checked against that use's range."""
    from cloudnoise.model.distributions import BANDWIDTH_NOISE, LATENCY_NOISE, parse_distribution

    use = BANDWIDTH_NOISE if "bandwidth" in what else LATENCY_NOISE
    try:
        return parse_distribution(text, use=use)
    except CloudnoiseError as err:
        raise CloudnoiseError(f"{what}: {err}", err.exit_code) from None
