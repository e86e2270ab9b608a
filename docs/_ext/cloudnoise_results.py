"""Tables of current results, rendered from the files the commands write, so that a page
shows what the last run gave and never a copy typed by hand.

    ```{paper-statements} results/paper.json
    ```

renders `cloudnoise paper --json`'s output (a statement per row, through the paper stage's own
table code, `cloudnoise.paper.table`), followed by the cause of each disagreeing statement.
Refresh it with `cloudnoise paper --reps 1000 --json > docs/explanation/results/paper.json`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.util.docutils import SphinxDirective


def _table(header: list[str], body: list[list[str]]) -> nodes.table:
    """A docutils table of plain text cells (nothing in them is markup)."""
    table = nodes.table(classes=["cloudnoise-results"])
    group = nodes.tgroup(cols=len(header))
    table += group
    group.extend(nodes.colspec(colwidth=1) for _ in header)

    def row(cells: list[str]) -> nodes.row:
        r = nodes.row()
        for c in cells:
            r += nodes.entry("", nodes.paragraph(text=c))
        return r

    head = nodes.thead()
    head += row(header)
    group += head
    tbody = nodes.tbody()
    tbody.extend(row(cells) for cells in body)
    group += tbody
    return table


class PaperStatements(SphinxDirective):
    """The `cloudnoise paper` table of a stored result."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        from cloudnoise.paper.table import HEADERS, read_result, rows

        rel, path = self.env.relfn2path(self.arguments[0])
        self.env.note_dependency(rel)
        # Checked as `cloudnoise report --paper` checks it: a malformed file fails the build.
        data: dict[str, Any] = read_result(Path(path).parent)
        cells = rows(data["statements"])
        shown = [h for h in HEADERS if h != "cause"]
        out: list[nodes.Node] = [_table(shown, [r[: len(shown)] for r in cells])]
        s = data["summary"]
        out.append(nodes.paragraph(text=(
            f"{data['reps']} repetitions per system, node count and noise variant, seed {data['seed']}: "
            f"calibration statements {s['calibration']['agree']} of {s['calibration']['total']} agree, "
            f"held-out statements {s['held-out']['agree']} of {s['held-out']['total']}.")))
        causes = [(r[0], r[-1]) for r in cells if r[-1]]
        if causes:
            out.append(nodes.paragraph(text="Why each disagreeing statement disagrees (the cause `cloudnoise paper` gives):"))
            items = nodes.bullet_list()
            for ident, cause in causes:
                para = nodes.paragraph()
                para += nodes.strong(text=ident)
                para += nodes.Text(f": {cause}")
                items += nodes.list_item("", para)
            out.append(items)
        return out


def setup(app: Any) -> dict[str, Any]:
    app.add_directive("paper-statements", PaperStatements)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
