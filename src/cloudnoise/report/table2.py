"""The Table II-style table: published figures of the built-in systems next
to what each campaign measured here, each row saying where it comes from."""

from __future__ import annotations

from dataclasses import dataclass

from cloudnoise.costs.model import Pricing
from cloudnoise.measurement.placement import placement
from cloudnoise.model.profile import LinkFigures, SystemProfile
from cloudnoise.report.data import CampaignData


@dataclass(frozen=True)
class Table2Row:
    """One row: latency (µs) and bandwidth (Gb/s) of one system at one node distance."""

    system: str
    source: str  # "published" (the paper's Table II), "measured here" (a campaign), or a profile's provenance kind
    instance: str
    distance: str
    min_latency_us: float | None
    mean_latency_us: float | None
    max_bandwidth_gbps: float | None
    mean_bandwidth_gbps: float | None
    price_per_node_hour: float | None

    @property
    def measured(self) -> bool:
        return self.source.startswith("measured")

    @property
    def figures(self) -> tuple[float | None, float | None, float | None, float | None]:
        """The four Table II quantities: latency min and mean, bandwidth max and mean."""
        return self.min_latency_us, self.mean_latency_us, self.max_bandwidth_gbps, self.mean_bandwidth_gbps


def _instance(profile: SystemProfile) -> str:
    return profile.hardware.instance_type or profile.hardware.cpu or "—"


def published_rows(profiles: list[SystemProfile], pricing: Pricing) -> list[Table2Row]:
    """A row per node distance of each profile that has Table II figures, labelled
    with the figures' provenance: `published` for the paper's Table II, `measured`
    for a profile built from a campaign (whose distance is never assumed)."""
    rows: list[Table2Row] = []
    for p in profiles:
        if p.table2 is None:
            continue
        price = pricing.price_per_node_hour(p)
        for distance, figures in p.table2.rows():
            assert isinstance(figures, LinkFigures)
            values = (figures.min_latency_us, figures.mean_latency_us, figures.max_bandwidth_gbit_s,
                      figures.mean_bandwidth_gbit_s)
            rows.append(Table2Row(p.name, p.table2.provenance.kind, _instance(p), distance, *values, price))
    return rows


def measured_row(c: CampaignData, pricing: Pricing, profiles: dict[str, SystemProfile]) -> Table2Row | None:
    """The campaign's Table II quantities (from its summary.json), or None if it measured neither."""
    t2 = c.table2()
    if not any(k in t2 for k in ("min_latency_us", "max_bandwidth_gbps")):
        return None
    labels = c.meta.get("labels") or {}
    profile = profiles.get(str(labels.get("system", "")))
    instance = labels.get("instance") or c.meta.get("cpu_model") or "—"
    froms = [f"{what} from {t2[key]}" for what, key in (("latency", "latency_from"), ("bandwidth", "bandwidth_from"))
             if t2.get(key)]
    source = "measured here" + (f" ({', '.join(froms)})" if froms else "")
    return Table2Row(
        c.name, source, str(instance), placement(c.meta),
        t2.get("min_latency_us"), t2.get("mean_latency_us"), t2.get("max_bandwidth_gbps"),
        t2.get("mean_bandwidth_gbps"), pricing.price_per_node_hour(profile) if profile else None,
    )
