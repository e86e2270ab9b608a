"""The report's figures, one module per figure family.

Every figure is drawn on a matplotlib ``Figure`` object with the Agg canvas
(no pyplot, so no global figure state and no display needed), then saved as
PNG and PDF under ``OUTDIR/figures`` and embedded into the HTML as a base64
PNG (see :mod:`cloudnoise.report.figures.base`).
"""
