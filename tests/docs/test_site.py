"""The documentation site builds with warnings as errors, and its references are
generated from the code: every command in the CLI reference, every public name in the
Python reference, no link to a page, anchor or file that is not there."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

pytest.importorskip("sphinx", reason="the docs tools come with the test extra: pip install '.[test]'")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    # -W: every warning (a broken link or anchor, a page outside the table of contents,
    # markup that does not parse in a docstring or a --help text) fails the build.
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-E", "-b", "html",
           "-d", str(out / ".doctrees"), str(DOCS), str(out)]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"the docs build failed:\n{r.stdout}\n{r.stderr}"
    return out


def _text(html: Path) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html.read_text(encoding="utf-8")))


def test_every_command_and_option_is_in_the_cli_reference(site: Path) -> None:
    import click

    from cloudnoise.cli import COMMANDS, cli

    html = (site / "reference" / "cli.html").read_text(encoding="utf-8")
    page = _text(site / "reference" / "cli.html")

    def walk(command: click.Command, path: list[str]) -> None:
        anchor = "-".join(["cloudnoise", *path])
        assert f'id="{anchor}"' in html, f"`cloudnoise {' '.join(path)}` is missing from the CLI reference"
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                for opt in param.opts:
                    assert opt in page, f"{opt} of `cloudnoise {' '.join(path)}` is missing"
        if isinstance(command, click.Group):
            ctx = click.Context(command)
            for sub in command.list_commands(ctx):
                child = command.get_command(ctx, sub)
                assert child is not None
                if not child.hidden:
                    walk(child, [*path, sub])

    ctx = click.Context(cli)
    for name in COMMANDS:
        command = cli.get_command(ctx, name)
        assert command is not None
        walk(command, [name])


def test_every_public_name_is_in_the_api_reference(site: Path) -> None:
    import cloudnoise

    page = (site / "reference" / "api.html").read_text(encoding="utf-8")
    for name in cloudnoise.__all__:
        if name == "__version__":
            continue
        home = getattr(cloudnoise, name).__module__
        assert f'id="{home}.{name}"' in page, f"cloudnoise.{name} ({home}) is missing from the API reference"


LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")


def test_relative_links_name_pages_or_images_of_the_site() -> None:
    """A link from a page to a repository file (`../bench/x.py`) is a dead link on the
    site: repository paths are written as code, pages and images are linked."""
    for page in DOCS.rglob("*.md"):
        for m in LINK.finditer(page.read_text(encoding="utf-8")):
            target = (m.group(1) or m.group(2)).split("#")[0]
            if not target or re.match(r"[a-z]+:", target):
                continue
            path = (page.parent / target).resolve()
            assert path.suffix in {".md", ".png", ".svg"} and path.is_relative_to(DOCS) and path.exists(), \
                f"{page.relative_to(ROOT)}: link to {target}, not a page or image of the site"
