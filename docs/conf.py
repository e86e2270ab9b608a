"""Sphinx configuration of the cloudnoise documentation site.

Build it (CONTRIBUTING.md): ``python -m sphinx -W --keep-going -b html docs build/docs``.
The pages are Markdown (MyST); the command-line reference is generated from the click
commands (sphinx-click) and the Python reference from the docstrings (autodoc), both
imported from the installed package, so the site documents the code it is built with.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from cloudnoise.version import __version__

# docs/_ext: the directives that render stored results (cloudnoise_results.py).
sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

project = "cloudnoise"
author = "the cloudnoise developers"
copyright = "the cloudnoise developers"
release = __version__
version = __version__

extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx_click", "cloudnoise_results"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", "Thumbs.db", ".DS_Store"]

# Markdown: headings up to level 3 get anchors, so `page.md#a-heading` links are checked.
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence", "deflist"]
# Docstrings write `name` for code, as Markdown does.
default_role = "code"

autodoc_typehints = "signature"
# One parameter a line once a signature is longer than this.
python_maximum_signature_line_length = 90
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "undoc-members": False}

html_theme = "furo"
html_title = f"cloudnoise {__version__}"
html_static_path: list[str] = []
pygments_style = "friendly"
# "--deadline" stays two hyphens, as typed on a command line.
smartquotes = False

# Warnings are errors in the build the tests run (-W); these checks make broken links warnings.
suppress_warnings: list[str] = []
linkcheck_ignore = [r"https?://localhost", r"tcp://"]


# ---------------------------------------------------------------- click help as plain text

_BAR = "| "
_INLINE = re.compile(r"([\\*|`_])")


def _escape(line: str) -> str:
    """Click help is plain text: nothing in it is reStructuredText markup."""
    return _INLINE.sub(r"\\\1", line)


def _plain_help(app: object, ctx: object, lines: list[str]) -> None:
    """sphinx-click parses help text as reStructuredText. cloudnoise's help is plain text
    whose ``\\b`` blocks (examples, option tables) are preformatted: those become literal
    blocks, everything else is escaped so that ``*``, ``|`` and backticks print as typed."""
    out: list[str] = []
    block: list[str] = []

    def flush() -> None:
        if block:
            out.extend([".. code-block:: text", ""] + ["    " + b for b in block] + [""])
            block.clear()

    for line in lines:
        if line.startswith(_BAR):
            block.append(line[len(_BAR):])
            continue
        flush()
        out.append(_escape(line))
    flush()
    lines[:] = out


def _plain_option_help(app: object, ctx: object, lines: list[str]) -> None:
    """An option's help text escaped; sphinx-click's own directive, fields and
    **Required** mark kept."""
    for i, line in enumerate(lines):
        body = line.strip()
        if not line.startswith(" ") or not body or body.startswith(":"):
            continue
        mark = "**Required** " if body.startswith("**Required** ") else ""
        lines[i] = line[: len(line) - len(body)] + mark + _escape(body[len(mark):])


def setup(app: object) -> None:
    app.connect("sphinx-click-process-description", _plain_help)  # type: ignore[attr-defined]
    app.connect("sphinx-click-process-epilog", _plain_help)  # type: ignore[attr-defined]
    app.connect("sphinx-click-process-options", _plain_option_help)  # type: ignore[attr-defined]
    app.connect("sphinx-click-process-arguments", _plain_option_help)  # type: ignore[attr-defined]
