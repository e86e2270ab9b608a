"""The calibration's simulations: the paper's collectives on candidate profiles.

This is the one part of the profiles stage that runs the engine: the
calibration produces the profiles' data and must see what its parameters do
at scale. Nothing on the profiles' runtime path imports it.

Seeds: configuration (system, nodes) gets TRACES seeds derived from the
calibration's seed, the system's name and the node count (BLAKE2b, stable
across runs and machines), its repetitions split over them, shared by its noise variants and by every
candidate parameter value the fit tries (common random numbers: the fit
compares parameter values on the same random draws, so a statistic is a
deterministic, monotone function of a parameter and bisection converges).
Noiseless runs are deterministic: one repetition each.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cloudnoise.model.profile import SystemProfile
from cloudnoise.paper.measures import Config
from cloudnoise.paper.statements import WORKLOADS

SEED_DOMAIN = b"cloudnoise-calibrate/1"


TRACES = 4  # OS noise trace realisations per configuration (see Simulator.run)


def config_seed(seed: int, system: str, nodes: int, draw: int = 0) -> int:
    """The seed of one configuration's `draw`-th group of repetitions."""
    h = hashlib.blake2b(digest_size=8, person=b"cn-calib-seed")
    h.update(SEED_DOMAIN + b"\0" + str(int(seed)).encode() + b"\0" + system.encode() + b"\0" + str(int(nodes)).encode())
    if draw:
        h.update(b"\0" + str(int(draw)).encode())
    return int.from_bytes(h.digest(), "little")


def default_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class NotModelled(Exception):
    """What a statement reads is outside the calibration: a system it does not
    model (its built-in noise is the artifact's) or an application workload."""


@dataclass
class Simulator:
    """Runs a collective on a profile; results cached by the profile's content."""

    seed: int
    reps: int
    threads: int = field(default_factory=default_threads)
    traces: int = TRACES
    _schedules: dict[tuple[str, int], Any] = field(default_factory=dict, repr=False)
    _cache: dict[tuple[str, str, int, str, int], np.ndarray] = field(default_factory=dict, repr=False)

    def _schedule(self, workload: str, nodes: int) -> Any:
        from cloudnoise.schedules.apps import parse_phase
        from cloudnoise.schedules.patterns import generate

        w = WORKLOADS[workload]
        if w.kind != "collective":
            raise NotModelled(f"{workload}: an application (the calibration simulates collectives)")
        key = (workload, nodes)
        if key not in self._schedules:
            self._schedules[key] = generate(parse_phase(w.spec).collective(nodes))
        return self._schedules[key]

    def run(self, profile: SystemProfile, workload: str, nodes: int, variant: str, reps: int | None = None) -> np.ndarray:
        """Runtimes (ns) of `reps` repetitions (1 when noiseless).

        The repetitions are split over TRACES seeds: a configuration's OS noise
        is one synthetic trace (every rank reads it from its own offset), so
        with one seed a statistic of the runs carries that trace's draw of long
        detours (at 16K nodes, medians 2.1-2.45x apart between seeds for AWS);
        the fit must meet the model's statistic, not one trace's."""
        from cloudnoise.simulation.api import simulate
        from cloudnoise.simulation.noise import noise_from_profile
        from cloudnoise.simulation.params import LogGOPS

        reps = 1 if variant == "none" else (reps or self.reps)
        fingerprint = hashlib.sha256(json.dumps(profile.to_dict(), sort_keys=True).encode()).hexdigest()
        key = (fingerprint, workload, nodes, variant, reps)
        if key not in self._cache:
            schedule = self._schedule(workload, nodes)
            draws = 1 if variant == "none" else min(self.traces, reps)
            parts = []
            for draw in range(draws):
                n = reps // draws + (1 if draw < reps % draws else 0)
                seed = config_seed(self.seed, profile.name, nodes, draw)
                result = simulate(
                    schedule, params=LogGOPS.from_profile(profile), reps=n, seed=seed, threads=self.threads,
                    noise=noise_from_profile(profile, seed), variant=variant,
                    ready_order=WORKLOADS[workload].ready_order,
                )
                parts.append(np.asarray(result.max_end_ns, dtype=np.float64))
            self._cache[key] = np.concatenate(parts)
        return self._cache[key]


@dataclass
class CalibrationRuns:
    """`Runs` and `Models` (paper/measures.py) over a set of candidate
    profiles; NotModelled for a system outside them or an application."""

    profiles: dict[str, SystemProfile]
    sim: Simulator

    def _of(self, system: str) -> SystemProfile:
        if system not in self.profiles:
            raise NotModelled(f"{system}: not modelled by the calibration")
        return self.profiles[system]

    def runtimes(self, config: Config) -> np.ndarray:
        return self.sim.run(self._of(config.system), config.workload, config.nodes, config.variant)

    def compute_ns(self, workload: str, system: str) -> float:
        raise NotModelled(f"{workload}: an application (the calibration simulates collectives)")

    def price(self, system: str) -> float | None:
        return self._of(system).prices.on_demand_per_node_hour

    def profile(self, system: str, placement: str = "same-rack") -> SystemProfile:
        return self._of(system).at(placement)
