"""Render a Report as one self-contained HTML page (Jinja2 template).

Self-contained: the CSS is inline and every figure is embedded as a base64
PNG, so the page opens offline and can be mailed as one file; the links next
to each figure point to the PNG and PDF files written beside it.
"""

from __future__ import annotations

from pathlib import Path

import jinja2

from cloudnoise.errors import CloudnoiseError
from cloudnoise.output_files import write_text
from cloudnoise.report.build import Report

TEMPLATES = Path(__file__).parent / "templates"
TEMPLATE = "report.html.j2"


def render(report: Report) -> str:
    """The page's HTML text."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    try:
        template = env.get_template(TEMPLATE)
    except jinja2.TemplateNotFound:
        raise CloudnoiseError(f"{TEMPLATES / TEMPLATE}: report template missing (broken installation)") from None
    return template.render(report=report, outdir=report.outdir)


def write(report: Report) -> Path:
    """Write OUTDIR/report.html; returns its path."""
    path = report.outdir / "report.html"
    try:
        write_text(path, render(report))
    except OSError as err:
        raise CloudnoiseError(f"{path}: cannot write ({err.strerror or err})") from None
    return path
