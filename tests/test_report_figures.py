"""Every figure of a report reads as drawn: no raw TeX in any text
(a log axis's `$\\mathdefault{10^{3}}$` printed as it is spelt), no tick labels running
into each other, a caption whose window and share agree with its panels, and the
machine of a report's campaign listed once in Table II.

The report is built from a known campaign (every measured figure: sizes, latency,
bandwidth and OS noise), a profile built from that campaign (as `cloudnoise demo`
does), and a small simulated sweep (scalability, cost, front): the figures the quick
demo draws, from data a test can make in seconds; and the critical path's section
(`--explain`: shares per system and scale, the timeline of a median and a p99 run).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text

from cloudnoise.report.figures import base
from report_support import write_known_campaign, write_simulated_sweep, write_sweep

EVERY_FIGURE = {"latency-bandwidth-vs-size", "latency-noise", "bandwidth-noise", "os-detours",
                "scalability-dissemination-16b", "cost-increase-dissemination-16b", "front-dissemination-16b",
                "critical-path-shares", "critical-path-timeline"}


@dataclass
class Built:
    report: Any  # cloudnoise.report.build.Report
    figures: dict[str, tuple[Figure, str]]  # name -> (figure as saved, caption)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The report, and every figure it saved with its caption."""
    from cloudnoise.model.build import build_profile
    from cloudnoise.report.build import ReportOptions, build_report

    root = tmp_path_factory.mktemp("figures")
    campaign = write_known_campaign(root / "campaign")
    build_profile(campaign, root / "here.json", name="this-machine")
    sweep = write_simulated_sweep(root / "sweep", ["aws-hpc", "daint"], [4, 16, 64], reps=30)
    saved: dict[str, tuple[Figure, str]] = {}
    real_save = base.save

    def keep(fig: Figure, outdir: Path, name: str, title: str, caption: str, wide: bool = False) -> base.SavedFigure:
        out = real_save(fig, outdir, name, title, caption, wide)  # escapes texts as for users, then draws
        saved[name] = (fig, caption)
        return out

    mp = pytest.MonkeyPatch()
    mp.setattr(base, "save", keep)
    try:
        report = build_report(ReportOptions(root / "out", campaigns=(campaign,), sweeps=(sweep,),
                                            profiles=(str(root / "here.json"), "daint", "aws-hpc"),
                                            explain_nodes=(8, 64)))
    finally:
        mp.undo()
    return Built(report, saved)


def _texts(fig: Figure) -> list[Text]:
    fig.canvas.draw()
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text()]


def _shown(text: Text) -> tuple[str, bool]:
    """What matplotlib draws for `text`: the string, and whether it is typeset as math."""
    return text._preprocess_math(text.get_text())  # the step Text.draw takes


def test_the_report_draws_every_figure(built):
    assert EVERY_FIGURE <= set(built.figures)


def test_no_text_shows_raw_tex(built):
    for name, (fig, _) in built.figures.items():
        for text in _texts(fig):
            shown, math = _shown(text)
            if not math:
                assert "$" not in shown and "\\mathdefault" not in shown, f"{name}: {shown!r} drawn as raw TeX"


def test_log_axes_read_as_plain_numbers(built):
    """The figures with log axes (sizes, noise, the front) label them 0.1, 1, 10, 1,000: no
    powers of ten to decode."""
    fig = built.figures["latency-bandwidth-vs-size"][0]
    labels = [t for t in _texts(fig) if re.fullmatch(r"[\d.,]+", t.get_text())]
    assert any(t.get_text() in ("1", "10", "100", "1000", "1,000", "10,000") for t in labels), [t.get_text() for t in labels]
    assert not [t for t in _texts(fig) if "mathdefault" in t.get_text()]


def test_no_axis_has_an_offset_or_a_power(built):
    """No "1e6" or "x1e7" above an axis (a reader misses it and reads 4 for 4,000,000), no
    tick label in scientific notation above 10^-4."""
    for name, (fig, _) in built.figures.items():
        fig.canvas.draw()
        for ax in (a for a in fig.axes if a.get_visible()):
            for axis in (ax.xaxis, ax.yaxis):
                assert axis.get_offset_text().get_text() == "", (name, axis.get_offset_text().get_text())
                for tick in axis._update_ticks():
                    text = tick.label1.get_text()
                    assert not re.search(r"e[+-]?\d|×|mathdefault", text), (name, text)


def test_huge_cost_increases_have_no_offset(tmp_path):
    """A one-host profile's noise raises its cost 40,000-fold: the percent axis reads
    4,000,000, not "4" under a "1e6" (the quick demo's Fig. 14 cost panel)."""
    from cloudnoise.report.data import load_sweep
    from cloudnoise.report.figures.cost import cost_increase_figure

    runtimes = {("one-host", n, v): np.full(20, 1e3 if v == "none" else 4e7) * (1 + 0.01 * np.arange(20))
                for n in (16, 64) for v in ("none", "both")}
    fig = cost_increase_figure(load_sweep(write_sweep(tmp_path / "sweep", runtimes)))
    base.plain_axes(fig)
    fig.canvas.draw()
    (ax,) = [a for a in fig.axes if a.get_visible()]
    labels = [t.label1.get_text() for t in ax.yaxis._update_ticks() if t.label1.get_text()]
    assert ax.yaxis.get_offset_text().get_text() == "" and any(re.fullmatch(r"\d{1,3}(,\d{3})+", t) for t in labels), labels


def test_every_point_of_the_front_figure_has_its_node_count_and_no_label_overlaps(built):
    from cloudnoise.report.figures.labels import POINT_RADIUS

    fig, _ = built.figures["front-dissemination-16b"]
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    (ax,) = [a for a in fig.axes if a.get_visible()]
    labels = [t for t in ax.texts if re.fullmatch(r"\d+", t.get_text())]
    expected = sorted(str(n) for n in (4, 16, 64) for _ in ("aws-hpc", "daint"))
    assert sorted(t.get_text() for t in labels) == expected
    boxes = [t.get_window_extent(renderer) for t in labels]
    assert not [(a, b) for a, b in combinations(range(len(boxes)), 2) if boxes[a].overlaps(boxes[b])]
    r = POINT_RADIUS * fig.dpi / 72 * 0.9
    for t, box in zip(labels, boxes):
        x, y = ax.transData.transform(t.xy)  # its own point is not covered either
        assert not (box.x0 < x + r and x - r < box.x1 and box.y0 < y + r and y - r < box.y1), t.get_text()


def test_the_os_detour_panel_marks_the_longest_and_has_readable_ticks(built):
    fig, caption = built.figures["os-detours"]
    fig.canvas.draw()
    for ax in (a for a in fig.axes if a.get_visible()):
        labels = [t.label1.get_text() for t in ax.yaxis._update_ticks() if t.label1.get_text()]
        assert len(labels) >= 3, labels
        marked = [t for t in ax.texts if t.get_text().startswith("longest: ")] or \
            (["after"] if "came after this window" in ax.get_title() else [])
        assert marked, ax.get_title()
    assert "longest detour" in caption


def _overlaps(labels: list[Text], renderer) -> list[tuple[str, str]]:
    boxes = [(t.get_text(), t.get_window_extent(renderer).shrunk(0.98, 0.98)) for t in labels]
    return [(a, b) for (a, ba), (b, bb) in combinations(boxes, 2) if ba.overlaps(bb)]


def test_no_tick_labels_overlap(built):
    for name, (fig, _) in built.figures.items():
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        for ax in fig.axes:
            if not ax.get_visible():
                continue
            for axis in (ax.xaxis, ax.yaxis):
                ticks = axis._update_ticks()  # the ticks drawn: inside the view limits
                labels = [t.label1 for t in ticks if t.label1.get_visible() and t.label1.get_text()]
                assert not _overlaps(labels, renderer), f"{name}: overlapping tick labels {_overlaps(labels, renderer)}"


def test_os_detour_caption_matches_its_panels(built):
    fig, caption = built.figures["os-detours"]
    window = re.search(r"first ([\d.]+) s", caption)
    share = re.search(r"largest ([\d.]+)%", caption)
    assert window and share, caption
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert panels
    for ax in panels:
        title = ax.get_title()
        assert f"first {window.group(1)} s" in title and f"top {share.group(1)}%" in title, (caption, title)
        assert ax.get_xlim()[1] == pytest.approx(float(window.group(1)), rel=1e-3), (caption, ax.get_xlim())


def test_noise_captions_give_the_share_their_panels_show(built):
    for name, word in (("latency-noise", "top"), ("bandwidth-noise", "bottom")):
        fig, caption = built.figures[name]
        share = re.search(r"(?:largest|smallest) ([\d.]+)%", caption)
        assert share, caption
        for ax in (a for a in fig.axes if a.get_visible()):
            assert f"{word} {share.group(1)}%" in ax.get_title(), (caption, ax.get_title())


def test_this_machine_is_listed_once_in_table_ii(built):
    table = next(s for s in built.report.sections if s.key == "table2").tables[0]
    measured = [row for row, cls in zip(table.rows, table.row_classes) if cls == "measured"]
    assert len(measured) == 1, measured
    assert "daint" in {row[0] for row in table.rows}  # the published rows stay


def _curve(name: str, top: int):  # type: ignore[no-untyped-def]
    """A size curve from 1 B to `top` bytes: latency 1 us + size / 10 GB/s."""
    import numpy as np

    from cloudnoise.report.measured import SizeCurve

    sizes = 2.0 ** np.arange(0, int(np.log2(top)) + 1)
    lat = 1 + sizes / 1e4
    return SizeCurve(name, "latency", sizes, lat, lat, lat * 2, lat * 3, sizes / lat / 1e3, sizes / lat / 2e3)


def test_a_dollar_in_a_name_is_a_character():
    """A campaign named with `$` signs: its legend entries read as written, and the
    log axes are still typeset (the guard does not turn math off for the whole figure)."""
    from cloudnoise.report.figures.network import size_figure

    name = "x$^$y $5"
    fig = size_figure([_curve(name, 2**20)])
    base.plain_text(fig)
    shown = [_shown(t) for t in _texts(fig)]
    assert f"{name} median" in {s for s, math in shown if not math}, shown
    assert any(math and "mathdefault" in s for s, math in shown), "the log axes lost their typeset powers"


@pytest.mark.parametrize("top", [2**24, 2**30])
@pytest.mark.parametrize("width", [2.5, 5.6])
def test_size_axis_labels_fit_any_panel(top, width):
    """On a narrow or a wide panel, 1 B up to 16 MiB or 1 GiB, the size axis's labels
    stand apart (never `32KiB256KiB2MiB`) and are byte sizes."""
    from cloudnoise.report.figures.network import size_figure

    fig = size_figure([_curve("c", top)])
    fig.set_size_inches(2 * width, 4)
    base.plain_text(fig)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        labels = [t.label1 for t in ax.xaxis._update_ticks() if t.label1.get_text()]
        assert len(labels) >= (2 if width < 3 else 5) and all(re.fullmatch(r"\d+(B|KiB|MiB|GiB)", t.get_text()) for t in labels)
        assert not _overlaps(labels, renderer), [t.get_text() for t in labels]


def test_no_text_runs_off_its_figure(built):
    """Titles, axis labels and legends stay inside the figure (a long campaign name
    cut a panel's title at its edge). Tick labels are left out: the last one of an
    axis ending at the figure's edge may overhang it by a few pixels."""
    from matplotlib.axis import Tick

    for name, (fig, _) in built.figures.items():
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        edge = fig.bbox.padded(1)
        ticks = {id(label) for tick in fig.findobj(Tick) for label in (tick.label1, tick.label2)}
        for text in (t for t in _texts(fig) if id(t) not in ticks):
            box = text.get_window_extent(renderer)
            assert edge.containsx(box.x0) and edge.containsx(box.x1), f"{name}: {text.get_text()!r} cut at the edge"


def test_a_panel_with_far_outliers_and_means_keeps_its_note_inside(tmp_path):
    """The cost and scalability panels clip far outliers and say so in the title: with
    outliers and means both above the axis, the note is two clauses long and ran past
    the right edge of the last panel in a row (the quick demo's Fig. 16 cost panel)."""
    from cloudnoise.report.data import load_sweep
    from cloudnoise.report.figures.cost import cost_increase_figure
    from cloudnoise.report.figures.scalability import scalability_figure
    from report_support import write_sweep

    rng = np.random.default_rng(0)
    runtimes: dict[tuple[str, int, str], np.ndarray] = {}
    for system in ("aws-hpc", "daint", "azure-hpc-with-a-long-name"):
        for nodes in (16, 64, 256):
            base_ns = 10_000.0 * nodes
            runtimes[(system, nodes, "none")] = np.full(40, base_ns)
            for variant in ("os", "network", "both"):
                body = base_ns * (1.0 + 0.05 * rng.random(40))
                body[:4] = base_ns * 80.0  # far outliers that also lift the mean far above the boxes
                runtimes[(system, nodes, variant)] = body
    sweep = load_sweep(write_sweep(tmp_path / "sweep", runtimes))
    for fig in (cost_increase_figure(sweep), scalability_figure(sweep)):
        notes = [t for t in _texts(fig) if "above the axis" in t.get_text()]
        assert notes and all("mean" in t.get_text() and "outlier" in t.get_text() for t in notes)
        renderer = fig.canvas.get_renderer()
        edge = fig.bbox.padded(1)
        for text in notes:
            box = text.get_window_extent(renderer)
            assert edge.containsx(box.x0) and edge.containsx(box.x1), f"{text.get_text()!r} cut at the edge"


def _page_tables(html: str) -> list[list[list[tuple[str, str]]]]:
    """Every table of the page: rows of (cell class, cell text)."""
    from html.parser import HTMLParser

    class Tables(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.tables: list[list[list[tuple[str, str]]]] = []
            self.cell: list[str] | None = None
            self.cls = ""

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag == "table":
                self.tables.append([])
            elif tag == "tr":
                self.tables[-1].append([])
            elif tag in ("td", "th"):
                self.cell, self.cls = [], f"{tag}.{dict(attrs).get('class') or ''}"

        def handle_data(self, data: str) -> None:
            if self.cell is not None:
                self.cell.append(data)

        def handle_endtag(self, tag: str) -> None:
            if tag in ("td", "th") and self.cell is not None:
                self.tables[-1][-1].append((self.cls, "".join(self.cell)))
                self.cell = None

    parser = Tables()
    parser.feed(html)
    return parser.tables


def test_the_page_tables_read_plainly_and_wrap(built):
    """The page's tables: money and percentages in plain notation, a number and its unit
    never split, long text columns allowed to wrap, a print stylesheet that lets tables
    fit the page instead of scrolling."""
    from cloudnoise.report.html import render

    html = render(built.report)
    tables = _page_tables(html)
    assert len(tables) >= 3  # Table II, runtimes, costs
    for table in tables:
        header = [text for _, text in table[0]]
        for row in table[1:]:
            for (cls, text), head in zip(row, header):
                assert not re.search(r"\d[eE][+-]?\d", text), (head, text)  # no 1.93e-6, no 4.1e+06
                if text.endswith("%") and cls != "td.text":  # a number cell; text cells may list several
                    assert re.fullmatch(r"[+-]?\d{1,3}(,\d{3})*(\.\d)?%", text), (head, text)
                assert not re.search(r"\d (ns|µs|us|ms|s)\b", text), (head, text)  # joined by a no-break space
                if head in ("System", "Source", "Instance", "Distance", "Billed"):
                    assert cls == "td.text", (head, cls)
    cost = next(t for t in tables if any("Billed" == text for _, text in t[0]))
    assert any(text.startswith("Cost per ") and "runs (USD)" in text for _, text in cost[0])
    assert "@media print" in html and re.search(r"\.table-wrap \{ overflow: visible; \}", html)
    assert "every point is labelled with its node count" in html


def _chromium() -> str:
    import shutil

    found = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if found is None:
        pytest.skip("no headless Chromium here (apt-get install chromium)")
    return found


@pytest.mark.parametrize("width", [1280, 760])
def test_no_table_is_clipped_in_chromium(built, tmp_path, width):
    """The page in headless Chromium at 1,280 px (a laptop) and 760 px (the print layout's
    rules; an A4 page holds about 720 px): no table wider than its box, so none scrolls
    sideways or is cut when printed."""
    import subprocess

    from cloudnoise.report.html import render

    probe = ("<script>window.addEventListener('load', () => { const wide = [...document.querySelectorAll("
             "'.table-wrap')].filter(w => w.scrollWidth > w.clientWidth + 1).map(w => w.scrollWidth + '>' + "
             "w.clientWidth); document.body.setAttribute('data-clipped', JSON.stringify(wide)); });</script>")
    page = tmp_path / "report.html"
    page.write_text(render(built.report).replace("</body>", probe + "</body>"))
    out = subprocess.run([_chromium(), "--headless", "--no-sandbox", "--disable-gpu", f"--window-size={width},2000",
                          "--virtual-time-budget=3000", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    found = re.search(r'data-clipped="([^"]*)"', out.stdout)
    assert found, out.stderr[-2000:]
    assert found.group(1).replace("&quot;", '"') == "[]", f"tables wider than their box at {width} px: {found.group(1)}"


def test_the_critical_path_section_has_a_row_per_system_and_scale(built):
    section = next(s for s in built.report.sections if s.key == "critical-path")
    rows = section.tables[0].rows
    assert [(r[0], r[1]) for r in rows] == [(n, c) for n in ("this-machine", "daint", "aws-hpc") for c in ("8", "64")]
    fig, caption = built.figures["critical-path-shares"]
    bars = [p for ax in fig.axes for p in ax.patches]
    # each (system, nodes) bar stacks to 100%
    ends = {}
    for p in bars:
        y = round(p.get_y() + p.get_height() / 2)
        ends[y] = max(ends.get(y, 0.0), p.get_x() + p.get_width())
    assert len(ends) == 6 and all(abs(v - 100.0) < 1e-6 for v in ends.values())
    assert "critical path" in caption
    timeline, _ = built.figures["critical-path-timeline"]
    assert len([ax for ax in timeline.axes if ax.get_visible()]) == 2  # the median and the p99 repetition
