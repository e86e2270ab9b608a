"""Why a statement that disagrees does: the mechanism, with the numbers behind it.

Shown in the table's `cause` column only for a row that disagrees. Each
entry names what in the model (or in the paper's own numbers) makes our
value differ; none of them is a correction: nothing here changes a number.
"""

from __future__ import annotations

CAUSES: dict[str, str] = {}
