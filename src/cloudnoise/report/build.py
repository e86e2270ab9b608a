"""Assemble a report: load the inputs, draw the figures, compute the tables
and observations, and hand a :class:`Report` to the HTML renderer.

A section appears only when its data is there: no campaign, no measured
figures; no sweep, no scalability or cost; a sweep without the noiseless
variant has no cost-increase figure.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from cloudnoise.version import __version__
from cloudnoise.costs.billing import Billing, parse_billing
from cloudnoise.costs.model import Pricing, billing_label, parse_pricing
from cloudnoise.costs.money import format_percent, format_usd, per_runs_unit
from cloudnoise.errors import CloudnoiseError
from cloudnoise.model.profile import SystemProfile
from cloudnoise.report import measured
from cloudnoise.report.costs import advice_points_of, cost_rows
from cloudnoise.report.data import CampaignData, SweepData, load_campaign, load_sweep
from cloudnoise.report.figures import base
from cloudnoise.report.figures.base import VARIANT_LABELS, SavedFigure
from cloudnoise.report.gaps import Gap, campaign_gaps
from cloudnoise.report.observations import (
    Observation,
    campaign_facts,
    cheapest_per_scale,
    communication_share,
    median_slowdowns,
    os_noise_negligible,
)
from cloudnoise.report.table2 import measured_row, published_rows
from cloudnoise.simulation.statistics import summarize


@dataclass(frozen=True)
class ReportOptions:
    """What `cloudnoise report` was asked for."""

    outdir: Path
    campaigns: tuple[Path, ...] = ()
    sweeps: tuple[Path, ...] = ()
    profiles: tuple[str, ...] | None = None  # None: every built-in profile
    pricing: str = "on-demand"
    billing: str = "provider"  # as `advise` and `cost` bill: each provider's rule
    title: str = "cloudnoise report"
    paper: Path | None = None  # a `cloudnoise paper --out` folder (its paper.json)
    log_y: bool = False  # scalability runtimes on a log axis (default: linear, as the paper)
    explain_nodes: tuple[int, ...] = ()  # node counts of the critical-path section (none: no section)


@dataclass
class HtmlTable:
    """A table as text cells; `row_classes` lets the page mark measured rows."""

    headers: list[str]
    rows: list[list[str]]
    row_classes: list[str] = field(default_factory=list)
    note: str = ""
    wrap: tuple[int, ...] = ()  # columns whose long text may wrap

    @property
    def min_ch(self) -> list[int]:
        """Per column, the least width (in `ch`) a wrapping column keeps: its longest
        word, so that a name such as aws-hpc-metal wraps between words, never at its
        hyphens; 0 for the other columns."""
        widths = [0] * len(self.headers)
        for k in self.wrap:
            words = [w for row in self.rows if k < len(row) for w in str(row[k]).split()]
            widths[k] = min(24, max((len(w) for w in words), default=0))
        return widths


@dataclass
class Section:
    """One part of the page: heading, a short explanation, figures and tables."""

    key: str
    title: str
    text: str
    figures: list[SavedFigure] = field(default_factory=list)
    tables: list[HtmlTable] = field(default_factory=list)


@dataclass
class Report:
    """Everything the page shows."""

    title: str
    generated: str
    version: str
    inputs: list[str]
    pricing: str
    observations: list[Observation]
    sections: list[Section]
    outdir: Path
    gaps: list[Gap] = field(default_factory=list)  # what the campaigns lack, said on the page

    @property
    def figures(self) -> list[SavedFigure]:
        return [f for s in self.sections for f in s.figures]


def _fmt(value: float | None, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return "—"
    return f"{value:.{digits}g}"


def _usd(value: float | None) -> str:
    return format_usd(value, missing="—")


NBSP = "\u00a0"  # keeps a number and its unit on one line when a table cell wraps
WJ = "\u2060"  # word joiner: a range (12.1–13.5) is not broken after its dash


def _ratio(value: float) -> str:
    """A ratio of medians: 1.04, 16,738."""
    return f"{value:.2f}" if value < 100 else f"{value:,.0f}"


def prepare_outdir(outdir: Path) -> None:
    """Create OUTDIR/figures and prove it writable before any work is done."""
    try:
        (outdir / "figures").mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".write-test", dir=outdir)
        os.close(fd)
        os.unlink(probe)
    except OSError as err:
        raise CloudnoiseError(f"{outdir}: cannot write the report there ({err.strerror or err})") from None


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "sweep"


def _profiles(names: tuple[str, ...] | None) -> list[SystemProfile]:
    from cloudnoise.profiles.registry import load_all_builtin, resolve_profile

    if names is None:
        return load_all_builtin()
    return [resolve_profile(n) for n in names]


def table2_section(profiles: list[SystemProfile], campaigns: list[CampaignData], pricing: Pricing) -> Section | None:
    by_name = {p.name: p for p in profiles}
    rows = [r for c in campaigns if (r := measured_row(c, pricing, by_name)) is not None]
    # A profile built from one of these campaigns (the demo's own) carries the same
    # figures: the machine is listed once, as measured here.
    here = {r.figures for r in rows}
    rows += [r for r in published_rows(profiles, pricing) if not (r.measured and r.figures in here)]
    if not rows:
        return None
    table = HtmlTable(
        ["System", "Source", "Instance", "Distance", "Min latency (µs)", "Mean latency (µs)",
         "Max bandwidth (Gb/s)", "Mean bandwidth (Gb/s)", "Price (USD/node-hour)"],
        [[r.system, r.source, r.instance, r.distance, _fmt(r.min_latency_us), _fmt(r.mean_latency_us),
          _fmt(r.max_bandwidth_gbps, 4), _fmt(r.mean_bandwidth_gbps, 4), _usd(r.price_per_node_hour)] for r in rows],
        ["measured" if r.measured else "published" for r in rows],
        "Measured rows come from this report's campaigns, each from the experiment its Source names (latency "
        "from latency-noise when measured, RTT/2 of the smallest message; bandwidth at the size with the highest "
        "peak): a figure of another experiment of the same campaign, such as the size plot's, is another run and "
        "can differ. Published rows are the paper's Table II (De Sensi et al., SC22) with Table I prices "
        f"({pricing.label()}; — where none is published).",
        wrap=(0, 1, 2, 3),
    )
    return Section("table2", "Latency and bandwidth (Table II)",
                   "Minimum and mean latency, maximum and mean bandwidth per system.", tables=[table])


def network_sections(campaigns: list[CampaignData], outdir: Path) -> list[Section]:
    from cloudnoise.report.figures.network import (
        bandwidth_noise_figure,
        latency_noise_figure,
        latency_slices_figure,
        size_figure,
    )
    from cloudnoise.report.figures.osnoise import os_detours_figure

    sections: list[Section] = []
    curves = [cv for c in campaigns if (cv := measured.size_curve(c)) is not None]
    if curves:
        fig = base.save(size_figure(curves), outdir, "latency-bandwidth-vs-size", "Latency and bandwidth vs size",
                        "RTT/2 per message size (line: median; band: minimum to 99th percentile) and bandwidth "
                        "(size over the minimum RTT/2: peak; dashed: mean), as in the paper's Fig. 2. "
                        + _size_sources(curves, campaigns), wide=True)
        sections.append(Section("sizes", "Latency and bandwidth versus message size",
                                "Single-connection ping-pong per message size.", [fig]))
    noise_figs: list[SavedFigure] = []
    lat = [s for c in campaigns if (s := measured.latency_noise(c)) is not None]
    if lat:
        noise_figs.append(base.save(latency_noise_figure(lat), outdir, "latency-noise", "Latency noise",
                                    "The largest 0.1% RTT/2 samples of a 1-byte ping-pong, normalised to the "
                                    "minimum latency, over time (Fig. 9-10); past "
                                    f"{measured.MAX_POINTS:,} points (runs of hours), the largest "
                                    f"{measured.MAX_POINTS:,}, as each panel says." + _sources(lat, "latency-noise"),
                                    wide=len(lat) > 1))
    slices = [s for c in campaigns if (s := measured.latency_slices(c)) is not None]
    if slices:
        noise_figs.append(base.save(latency_slices_figure(slices), outdir, "latency-by-slice",
                                    "Latency through the day",
                                    "RTT/2 percentiles of the latency-noise ping-pong per slice of the run "
                                    "(measure --slice), to see whether the hour of the day matters, as the paper "
                                    "checked over 24 hours.", wide=len(slices) > 1))
    bw = [s for c in campaigns if (s := measured.bandwidth_noise(c)) is not None]
    if bw:
        noise_figs.append(base.save(bandwidth_noise_figure(bw), outdir, "bandwidth-noise", "Bandwidth noise",
                                    "The smallest 0.1% bandwidth samples, normalised to the maximum bandwidth, "
                                    f"over time (Fig. 11-12); past {measured.MAX_POINTS:,} points, the smallest "
                                    f"{measured.MAX_POINTS:,}, as each panel says." + _sources(bw, "bandwidth-noise"),
                                    wide=len(bw) > 1))
    osn = [s for c in campaigns if (s := measured.os_detours(c)) is not None]
    if osn:
        noise_figs.append(base.save(os_detours_figure(osn), outdir, "os-detours", "OS detours",
                                    f"Selfish-detour benchmark: the largest {osn[0].shown_percent:g}% detours in "
                                    f"{_detour_window(osn)} of the run (Fig. 8 shows 5 s); the star marks the run's "
                                    "longest detour (the panel's title names it when it came later)."
                                    + _sources(osn, "os-noise"), wide=len(osn) > 1))
    if noise_figs:
        sections.append(Section("noise", "Measured noise",
                                "Network noise (latency and bandwidth, sample by sample) and OS noise as measured "
                                "by the campaigns.", noise_figs))
    return sections


def _size_sources(curves: list[measured.SizeCurve], campaigns: list[CampaignData]) -> str:
    """Which experiment each size curve comes from, and where Table II's latency
    of the same campaign comes from when that is another run."""
    by_name = {c.name: c for c in campaigns}
    parts = []
    for curve in curves:
        text = f"{curve.campaign}: its {curve.experiment} experiment"
        latency_from = (by_name[curve.campaign].table2().get("latency_from") if curve.campaign in by_name else None)
        if latency_from and latency_from != curve.experiment:
            text += (f" (Table II's latency comes from its {latency_from} experiment, another run: its minimum can "
                     "differ from this curve's)")
        parts.append(text)
    return "Data: " + "; ".join(parts) + "."


def _sources(series: list[Any], experiment: str) -> str:
    """`Data: the latency-noise experiment of campaign X (, Y)`."""
    names = ", ".join(dict.fromkeys(s.campaign for s in series))
    return f" Data: the {experiment} experiment of {names}."


def _detour_window(series: list[measured.NoiseSeries]) -> str:
    """The window the OS-detour panels show, as the caption says it: the one
    every panel shares, else each panel's own (in its title)."""
    spans = {f"{s.span_s:.3g}" for s in series}
    return f"the first {spans.pop()} s" if len(spans) == 1 else "the first seconds (each panel says how many)"


def _runtime_table(sweep: SweepData) -> HtmlTable:
    variants = sweep.variants()
    headers = ["System", "Nodes"]
    for v in variants:
        headers.append(f"{VARIANT_LABELS.get(v, v)}: median (95% CI)")
    if "none" in variants:
        headers += [f"{VARIANT_LABELS.get(v, v)} / no noise" for v in variants if v != "none"]
    rows: list[list[str]] = []
    for system in sweep.systems():
        for nodes in sweep.nodes(system):
            cells = [system, str(nodes)]
            medians: dict[str, float] = {}
            for v in variants:
                values = sweep.get(system, nodes, v)
                if values is None or len(values) == 0:
                    cells.append("—")
                    continue
                s = summarize(values)
                unit, div = base.time_unit([s.median])
                medians[v] = s.median
                cells.append(f"{s.median / div:.4g}{NBSP}{unit} ({s.median_ci_low / div:.4g}–{WJ}{s.median_ci_high / div:.4g})")
            if "none" in variants:
                for v in variants:
                    if v == "none":
                        continue
                    ok = v in medians and medians.get("none", 0) > 0
                    cells.append(_ratio(medians[v] / medians["none"]) if ok else "—")
            rows.append(cells)
    reps = sorted({len(v) for v in sweep.runtimes_ns.values()})
    n = str(reps[0]) if len(reps) == 1 else f"{reps[0]}–{reps[-1]}"
    return HtmlTable(headers, rows, note=f"Median runtime of {n} repetitions with its 95% confidence interval (the "
                     "distribution-free one, between two repetitions' runtimes); the last columns: noisy median over "
                     f"the noiseless median. Data: sweep {sweep.root}.", wrap=(0, *range(2, len(headers))))


def _cost_table(sweep: SweepData, pricing: Pricing, billing: Billing | None = None) -> HtmlTable | None:
    """Per system and node count: the price, how it is billed, the median run's
    cost with each noise variant (in one unit for the table: per run, or per
    1,000 or million runs), and what the noisiest variant adds to the bill."""
    rows = cost_rows(sweep, pricing, billing)
    if not rows:
        return None
    variants = list(dict.fromkeys(r.variant for r in rows))
    noisiest = next((v for v in ("both", "network", "os") if v in variants), None)
    unit = per_runs_unit(r.cost_usd for r in rows)
    cells: dict[tuple[str, int], dict[str, Any]] = {}
    for r in rows:
        cells.setdefault((r.system, r.nodes), {})[r.variant] = r
    unpriced = list(dict.fromkeys(s for (s, _), by in cells.items() if all(r.cost_usd is None for r in by.values())))
    cells = {k: v for k, v in cells.items() if k[0] not in unpriced}
    if not cells:
        return None
    body = []
    for (system, nodes), by_variant in cells.items():
        first = next(iter(by_variant.values()))
        c = first.cost
        noisy = by_variant.get(noisiest) if noisiest else None
        adds = noisy.cost.noise_increase if noisy is not None and noisy.cost is not None and noisy.cost_usd is not None else None
        body.append([system, str(nodes), _usd(c.price_per_node_hour if c else None),
                     (c.billing or "—") if c else "—",
                     *[unit.amount(by_variant[v].cost_usd, missing="—") if v in by_variant else "—" for v in variants],
                     *([format_percent(adds)] if noisiest else [])])
    headers = ["System", "Nodes", "Price (USD/node-hour)", "Billed"]
    headers += [f"Cost per {unit.label} (USD): {VARIANT_LABELS.get(v, v)}" for v in variants]
    if noisiest:
        headers.append(f"Cost added by {VARIANT_LABELS.get(noisiest, noisiest)}")
    return HtmlTable(headers, body, wrap=(0, 3),
                     note=f"Cost of the median run = billed time × nodes × price ({pricing.label()}, "
                     f"{billing_label(billing)}: the Billed column gives each system's rule, as `cloudnoise advise` "
                     "and `cloudnoise cost` bill). The last column is the billed cost of the noisy median over the "
                     "billed cost of the noiseless one."
                     + (f" Without a published price, not listed: {', '.join(unpriced)}." if unpriced else "")
                     + f" Data: sweep {sweep.root}.")


def sweep_sections(sweep: SweepData, outdir: Path, pricing: Pricing, name: str, log_y: bool = False,
                   billing: Billing | None = None) -> list[Section]:
    from cloudnoise.report.figures.cost import cost_increase_figure
    from cloudnoise.report.figures.scalability import scalability_figure

    status = "" if sweep.complete else " This sweep is incomplete: only the repetitions run so far are shown."
    fig = base.save(scalability_figure(sweep, log_y=log_y), outdir, f"scalability-{name}", f"Scalability: {sweep.title}",
                    "Runtime per node count with and without noise (Fig. 14-15 style): notched boxes (notch: the "
                    "median's distribution-free 95% confidence interval, drawn within the box), diamond: mean, whiskers: 1.5 IQR, "
                    "dots: outliers; a flat bar: every repetition the same (no noise). "
                    + ("Logarithmic runtime axis." if log_y else "Linear axis per panel; outliers and means above "
                       "it are counted in the panel's title.") + f" Data: sweep {sweep.root}.",
                    wide=True)
    sections = [Section(f"scalability-{name}", f"Scalability: {sweep.title}",
                        f"Simulated with the LogGOPS engine ({sweep.meta.get('reps', '?')} repetitions per point, "
                        f"seed {sweep.meta.get('seed', '?')}).{status}", [fig], [_runtime_table(sweep)])]
    has_increase = any("none" in sweep.variants(s) and len(sweep.variants(s)) > 1 for s in sweep.systems())
    figs = []
    if has_increase:
        figs.append(base.save(cost_increase_figure(sweep), outdir, f"cost-increase-{name}",
                              f"Cost increase: {sweep.title}",
                              "Per repetition, its cost over the median noiseless cost, minus one (Fig. 16-17 "
                              "style), priced pro rata as the paper does: the runtime increase, since nodes and price "
                              "do not change. Billed as the providers bill (the table below), a run shorter than the "
                              f"minimum charge costs the same with noise or without. Data: sweep {sweep.root}.",
                              wide=True))
    points = advice_points_of(sweep, pricing, billing)
    if any(p.cost_usd is not None for p in points):
        from cloudnoise.report.figures.front import front_figure

        noisy = next(v for v in ("both", "network", "os") if v in sweep.variants())
        figs.append(base.save(front_figure(points, f"Runtime vs cost: {sweep.title}"), outdir, f"front-{name}",
                              f"Runtime vs cost: {sweep.title}",
                              f"Every priced system and node count with {VARIANT_LABELS.get(noisy, noisy)}: median cost "
                              "per run against median runtime, whiskers to the p99 of each, one colour per system; the "
                              "black steps join the Pareto front (no other point is both cheaper and faster); every "
                              "point is labelled with its node count (bold: on the front). Priced "
                              f"{pricing.label()}, {billing_label(billing)}, as "
                              f"`cloudnoise advise --sweep DIR` prices the same runs (and recommends one). Data: "
                              f"sweep {sweep.root}."))
    table = _cost_table(sweep, pricing, billing)
    if figs or table:
        sections.append(Section(f"cost-{name}", f"Cost: {sweep.title}",
                                "What noise adds to the cost of a run, what a run costs, and which systems and node counts "
                                "no other beats on both runtime and cost.", figs,
                                [table] if table else []))
    return sections


def paper_section(folder: Path) -> Section:
    """The `cloudnoise paper` table: each Sec. V statement, the paper's value,
    ours, agrees or not, calibration target or held out."""
    from cloudnoise.paper.table import BEYOND_HEADERS, HEADERS, PAPER_LARGEST_RING, beyond_rows, read_result, rows

    data = read_result(folder)
    cells = rows(data["statements"])
    s = data["summary"]
    counts = "; ".join(f"{role}: {s[role]['agree']} of {s[role]['total']} agree" for role in ("calibration", "held-out"))
    table = HtmlTable(
        [h.capitalize() for h in HEADERS], cells, ["" if d["agrees"] else "disagree" for d in data["statements"]],
        f"{counts}. {data['reps']} repetitions per configuration, seed {data['seed']}. Calibration rows are targets the "
        "built-in profiles were fitted to (cloudnoise profiles calibrate); held-out rows were never looked at by the "
        "calibration: they test it. Highlighted rows disagree; the cause column says why.",
        wrap=(3, 4, 5, 7),
    )
    tables = [table]
    if data.get("beyond"):
        tables.append(HtmlTable(
            [h.capitalize() for h in BEYOND_HEADERS], beyond_rows(data["beyond"]["points"]), [],
            f"Fig. 15's 512 MiB ring (the paper's pipelinedring, one segment per rank) past the paper's scale: the "
            f"paper stops at {PAPER_LARGEST_RING:,} nodes; these points are cloudnoise's alone (cloudnoise paper "
            "--beyond), read by no statement. Medians of the repetitions; network noise as each profile carries it.",
        ))
    return Section("paper", "The paper's Sec. V, reproduced (cloudnoise paper)",
                   "Every quantitative statement of De Sensi et al. (SC22) Sec. V, simulated with the built-in "
                   "profiles and checked against the interval the paper's wording allows.", tables=tables)


# The critical-path section's case: a 16 B dissemination (the paper's latency-bound
# collective), its repetitions, and the ranks of the run whose timeline is drawn.
EXPLAIN_REPS = 30
TIMELINE_RANKS = 16


def explanation_section(profiles: list[SystemProfile], nodes: tuple[int, ...], outdir: Path) -> Section:
    """Where the time goes along the critical path (cloudnoise explain), per system and
    scale, and the timeline of the median and the p99 repetition of a small run."""
    from cloudnoise.explanation.api import explain
    from cloudnoise.report.figures.explanation import shares_figure
    from cloudnoise.report.figures.timeline import timeline_figure

    cells, rows = [], []
    for profile in profiles:
        for n in nodes:
            e = explain(pattern="dissemination", ranks=n, size="16B", profile=profile, reps=EXPLAIN_REPS, top_ranks=1)
            v = e.variants[e.primary]
            cells.append((profile.name, n, v.shares))
            sd = v.slowdown
            rows.append([profile.name, f"{n:,}", VARIANT_LABELS.get(e.primary, e.primary),
                         "—" if sd is None else f"{sd.ratio:.3g}x",
                         "—" if sd is None or sd.excess_ns <= 0 else ", ".join(
                             f"{k.split('_')[0]} {100 * x / sd.excess_ns:.0f}%" for k, x in sd.by_noise_ns.items()),
                         v.tail.tail_cause.replace("_", " ") + (" (not the median's)" if v.tail.differs else "")])
    shares = base.save(shares_figure(cells, "16 B dissemination, with the noise each profile carries"), outdir,
                       "critical-path-shares", "Where the time goes on the critical path",
                       "Per system and node count, each kind's share of the runtime along the critical path (the "
                       "chain of activities from time 0 to the last rank's end, each starting when the one before "
                       f"it ended), the mean over {EXPLAIN_REPS} repetitions: LogGOPS terms in cool colours, noise in "
                       "warm ones (cloudnoise explain; docs/how-to/explain.md).", wide=True)
    first = profiles[0]
    small = explain(pattern="dissemination", ranks=TIMELINE_RANKS, size="16B", profile=first, reps=EXPLAIN_REPS)
    timelines = small.timelines(("median", "p99"))
    titles = [f"{first.name}, {TIMELINE_RANKS}-rank 16 B dissemination, {VARIANT_LABELS.get(small.primary, small.primary)}: "
              f"{which} repetition ({t.repetition}), {t.runtime_ps / 1e6:.3g} µs" for which, t in zip(("median", "p99"), timelines)]
    timeline = base.save(timeline_figure(timelines, titles), outdir, "critical-path-timeline",
                         "Timeline of the median and the p99 repetition",
                         "Every rank's CPU (upper bar) and NIC (lower bar) over time, a grey line per message from its "
                         "send to its receive, OS detours in red at the end of the activity they stopped; the critical "
                         "path outlined in red. The same run in Perfetto: cloudnoise simulate --timeline FILE.json.",
                         wide=True)
    table = HtmlTable(["System", "Nodes", "Noise", "Slowdown from no noise", "Split by noise", "Tail (p99) cause"],
                      rows, note="The slowdown of the median from the noiseless run, split by the noise on the median "
                      "repetitions' critical paths; the tail's cause: the noise with the most time on the p99 "
                      "repetitions' paths.", wrap=(0, 4, 5))
    return Section("critical-path", "Why it takes its time: the critical path",
                   "Which LogGOPS terms and which noise the runtime is made of, read from every repetition's critical "
                   "path.", [shares, timeline], [table])


def build_report(opts: ReportOptions) -> Report:
    """Load every input, write the figures under OUTDIR/figures, and return the Report."""
    if not (opts.campaigns or opts.sweeps or opts.profiles or opts.paper):
        raise CloudnoiseError("nothing to report: give --campaign DIR, --sweep DIR, --paper DIR or --profile NAMES")
    pricing = parse_pricing(opts.pricing)
    billing = parse_billing(opts.billing)
    campaigns = [load_campaign(p) for p in opts.campaigns]
    sweeps = [load_sweep(p) for p in opts.sweeps]
    profiles = _profiles(opts.profiles)
    paper = paper_section(opts.paper) if opts.paper is not None else None
    prepare_outdir(opts.outdir)

    sections: list[Section] = []
    observations: list[Observation] = []
    gaps = [g for c in campaigns for g in campaign_gaps(c)]
    if gaps:
        sections.append(gaps_section(gaps))
    t2 = table2_section(profiles, campaigns, pricing)
    if t2:
        sections.append(t2)
    sections += network_sections(campaigns, opts.outdir)
    for c in campaigns:
        observations += campaign_facts(c.name, c.table2(), measured.os_noise_row(c))
    used: set[str] = set()
    for sweep in sweeps:
        name = _slug(str(sweep.experiment.get("name") or sweep.root.name))
        while name in used:
            name += "-2"
        used.add(name)
        sections += sweep_sections(sweep, opts.outdir, pricing, name, log_y=opts.log_y, billing=billing)
        observations += (median_slowdowns(sweep) + os_noise_negligible(sweep) + communication_share(sweep)
                         + cheapest_per_scale(sweep, pricing, billing))
    if opts.explain_nodes:
        sections.append(explanation_section(profiles, opts.explain_nodes, opts.outdir))
    if paper is not None:
        sections.append(paper)
    inputs = [f"campaign {c.root}" for c in campaigns] + [f"sweep {s.root}" for s in sweeps]
    if opts.paper is not None:
        inputs.append(f"paper {opts.paper}")
    if opts.profiles:
        inputs.append("profiles " + ", ".join(opts.profiles))
    return Report(opts.title, datetime.now(timezone.utc).isoformat(timespec="seconds"), __version__, inputs,
                  f"{pricing.label()}, {billing_label(billing)} ({_billing_rules(billing)})", observations, sections,
                  opts.outdir, gaps)


def _billing_rules(billing: Billing | None) -> str:
    """What the billing means, for the page's header: the rule applied to every
    run's cost (the same as `cost` and `advise` apply by default)."""
    if billing is not None:
        return "the same rule for every system; the cost tables' Billed column"
    return ("per-second or per-hour rounding and each provider's minimum charge, as `cloudnoise advise` and "
            "`cloudnoise cost` bill; the cost tables' Billed column gives each system's rule")


def gaps_section(gaps: list[Gap]) -> Section:
    """The parts of the campaigns that are missing, and what to run to fill them."""
    table = HtmlTable(["Campaign", "Experiment", "What is missing", "To fill it"],
                      [[g.campaign, g.experiment or "—", g.problem, g.fix] for g in gaps], wrap=(2, 3))
    return Section("missing", "Missing data",
                   "Parts of the campaigns that are listed in their metadata but incomplete or missing: the figures "
                   "and tables below leave them out.", tables=[table])


def document(report: Report, html_path: Path) -> dict[str, Any]:
    """The `--json` object: where the page and figures are, and the observations."""
    return {
        "report": str(html_path),
        "figures": {f.name: {"png": str(f.png), "pdf": str(f.pdf)} for f in report.figures},
        "observations": [o.to_dict() for o in report.observations],
        "missing": [g.to_dict() for g in report.gaps],
    }
