"""What a campaign can vouch for: the profile's `campaign` part (`model build`).

A profile applies its noise to every host at every scale. What it rests on is
one measurement: some pairs of hosts, for some time, under some load. This
module says what that was, from the campaign itself:

* **pairs**: the hosts the latency series ran between (cloudnoise's probes
  record them; Netgauge does not, and the profile says so);
* **round trips and duration**: the latency series' samples and the time
  they span;
* **time in stalls**: the share of that time the series spent in round trips
  above the stall threshold (model/latency_split.py), counted from the
  round trips themselves (their excess over the median, over the time);
  and the bandwidth series' share of time in drops;
* **load**: the load average, CPU steal and the busiest other processes the
  measure stage recorded at each experiment's start and end
  (measurement/machine_load.py).

It flags what the profile should not be trusted for as a whole:

* noise that takes a large share (SHORT_RUN_SHARE) of a short run
  (SHORT_RUN_S) measured on one pair: that pair's and that moment's, not
  the system's;
* a campaign measured under load (a load average above the cores, or steal
  above STEAL_SHARE at any start or end): the load is in its noise;
* no OS-noise run: the round trips hold the hosts' detours, and OS noise
  added to the profile would count them twice.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from cloudnoise.model.bandwidth_split import BandwidthSplit
    from cloudnoise.model.latency_split import LatencySplit
    from cloudnoise.model.round_trips import RoundTrips

SHORT_RUN_S = 60.0
SHORT_RUN_SHARE = 0.05
STEAL_SHARE = 0.02
MIN_ROUND_TRIPS = 1_000  # as model/closure.py judges a replay
STALLED_PAIR_SHARE = 0.01  # a pair of hosts whose series spends this share of its time in stalls stalls


def stall_time_share(trips: RoundTrips, threshold_ns: float) -> float:
    """The share of the series' time spent in its stalls: the round trips above the threshold,
    their excess over the median, over the time the series spans."""
    if not trips.observed_ns > 0:
        return 0.0
    median = trips.median()
    stalled = trips.values > threshold_ns
    excess = float(np.dot(np.asarray(trips.values[stalled], np.float64) - median, trips.counts[stalled]))
    return min(1.0, max(0.0, excess / trips.observed_ns))


def vouch(campaign: Path, meta: dict[str, Any], where: str, trips: RoundTrips | None, split: LatencySplit | None,
          bw_split: BandwidthSplit | None, profile: dict[str, Any], missing: list[str],
          pair_rows: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The `campaign` part of a profile (docs/profile-format.md); `pair_rows`: each pair's round
    trips, duration and time in stalls where several pairs were measured in turn."""
    from cloudnoise.measurement.machine_load import busy_flags, load_records

    flags: list[str] = []
    pairs = [r["hosts"] for r in pair_rows] if pair_rows else _pairs(meta)
    out: dict[str, Any] = {"pairs": pairs}
    if pair_rows:
        out["per_pair"] = [{k: r[k] for k in ("hosts", "round_trips", "duration_s", "stall_time_share")}
                           for r in pair_rows]
        stalled = [r for r in pair_rows if r["stall_time_share"] >= STALLED_PAIR_SHARE]
        if stalled and len(stalled) < len(pair_rows):
            flags.append("stalls on " + ", ".join(f"{'-'.join(r['hosts'])} ({100 * r['stall_time_share']:.3g}% of "
                                                  f"its time)" for r in stalled)
                         + f", not on the other {len(pair_rows) - len(stalled)} pair(s): those hosts' stalls, applied "
                           "to their share of the hosts")
    if trips is not None and trips.count:
        out["round_trips"] = trips.count
        if trips.count < MIN_ROUND_TRIPS:
            flags.append(f"only {trips.count} round trip(s) in the latency series: too few for a noise model or its "
                         f"replay to mean much (at least {MIN_ROUND_TRIPS:,}); measure longer")
        out["duration_s"] = trips.observed_ns / 1e9
        if split is not None:
            share = stall_time_share(trips, split.threshold_ns)
            out["stall_time_share"] = share
            out["stall_sample_share"] = split.stall_share
            short = out["duration_s"] < SHORT_RUN_S
            if share >= SHORT_RUN_SHARE and len(pairs) <= 1 and short:
                who = f"the pair {pairs[0][0]}-{pairs[0][1]}" if pairs else "one pair of hosts (not recorded)"
                flags.append(
                    f"stalls take {100 * share:.3g}% of a {out['duration_s']:.3g} s run on {who}: that pair's and "
                    f"that moment's, not a measure of the system (measure longer, and more pairs: "
                    f"cloudnoise measure latency-noise --hosts a,b,c,d)")
    if bw_split is not None:
        out["episode_time_share"] = bw_split.time_share
    if profile.get("os_noise") is None:
        out["os_noise"] = ("none measured: the round trips hold the hosts' detours; OS noise added to this profile "
                           "(--os-noise) would count them twice")
        flags.append("no OS-noise run: the network noise still holds the hosts' OS noise; adding OS noise would "
                     "count it twice")
    else:
        out["os_noise"] = "measured: counted once (the latency noise is what the round trips show beyond it)"
    records = load_records(meta)
    if records:
        out["load"] = records
        flags.extend(busy_flags(records, STEAL_SHARE))
    if missing:
        flags.append(f"built without: {', '.join(missing)}")
    out["flags"] = flags
    src = "hosts recorded by the probes" if pairs else "the tool recorded no hosts of its ping-pongs"
    return {"provenance": {"kind": "measured", "source": f"{where}: the latency series ({src}) and the measure "
                                                          "stage's records of each experiment"}, **out}


def _pairs(meta: dict[str, Any]) -> list[list[str]]:
    """The host pairs of the latency series, as the measure stage recorded them (the two ranks'
    hosts of each run; one host twice for a pair of ranks on one machine); none for a tool that
    does not record them (Netgauge)."""
    exp = (meta.get("experiments") or {}).get("latency-noise") or {}
    got = exp.get("pairs") if isinstance(exp, dict) else None
    if not isinstance(got, list):
        return []
    out = []
    for p in got:
        hosts = p.get("hosts") if isinstance(p, dict) else None
        if isinstance(hosts, list) and len(hosts) == 2 and all(isinstance(h, str) and h != "unknown" for h in hosts):
            out.append([hosts[0], hosts[1]])
    return out
