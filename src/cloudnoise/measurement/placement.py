"""Where a campaign's ranks ran: one host (shared memory) or several (a network).

Two ranks on one machine talk through shared memory: their latency, bandwidth
and noise say nothing about a cloud's network, and the OS noise of a busy
shared machine is not an HPC node's. Every place that shows a measured
system (model build, report, demo) says which it was, from the hosts the
ranks reported, never from a label the user typed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

ONE_HOST = "one host: shared memory, not a network"
TWO_NODES_HINT = (
    "to measure a network, run the ranks on two nodes: "
    "`cloudnoise measure latency --hosts NODE1,NODE2` (or --hostfile FILE, or --launcher srun)"
)


def one_host_name(name: str) -> str:
    """A one-host system's name wherever its results are shown (tables, figures, observations)."""
    return f"{name} (one host, shared memory)"


def one_host_systems(sweep_meta: Mapping[str, Any]) -> set[str]:
    """The systems of a sweep (its sweep.json) whose profile was measured on one host."""
    profiles = sweep_meta.get("profiles") or {}
    return {name for name, p in profiles.items() if isinstance(p, Mapping) and p.get("one_host") is True}


def single_host(meta: Mapping[str, Any]) -> bool:
    """True when the ranks reported exactly one host between them (no hosts recorded: not known)."""
    hosts = {h for h in (meta.get("hosts") or []) if h}
    return len(hosts) == 1


def placement(meta: Mapping[str, Any]) -> str:
    """'one host: shared memory, not a network', or the node distance the campaign was labelled with."""
    if single_host(meta):
        return ONE_HOST
    labels = meta.get("labels") or {}
    return str(labels.get("distance") or "distance unknown")
