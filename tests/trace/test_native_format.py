"""The native format seen from both sides: the C header's call table and
the Python reader's must agree, and files written to the format read back."""

from __future__ import annotations

import re
from pathlib import Path

from cloudnoise.trace import native_format as fmt
from cloudnoise.trace.reader import open_trace

from native_writer import coll, finalize, irecv, send, waitall, write_trace

# The source tree's header (tests run from a checkout; the installed package may live elsewhere).
HEADER = Path(__file__).resolve().parents[2] / "src" / "probes" / "cn_trace_format.h"


def test_call_tables_agree_with_the_c_header() -> None:
    text = HEADER.read_text()
    rows = re.findall(r"X\((\d+), (\w+), CN_LAYOUT_(\w+)\)", text)
    assert rows, "no CN_TRACE_CALLS rows found"
    c_table = {int(n): (name, layout.lower()) for n, name, layout in rows}
    assert c_table == fmt.CALLS
    assert f'#define CN_TRACE_MAGIC "{fmt.MAGIC.decode()}"' in text
    assert f"#define CN_TRACE_VERSION {fmt.VERSION}" in text
    assert f"#define CN_TRACE_HEADER_BYTES {fmt.HEADER.size}" in text
    assert "#define CN_TRACE_PREFIX_BYTES 24" in text and fmt.PREFIX.size == 24


def test_records_read_back(tmp_path: Path) -> None:
    folder = write_trace(tmp_path / "t", [
        [send(100, 200, 1, 64, tag=7), coll("MPI_Allreduce", 300, 400, 8), finalize(500)],
        [irecv(50, 60, 0, 64, req=0x44, tag=7), waitall(70, 250, [(0x44, 0, 7, 64)]),
         coll("MPI_Allreduce", 300, 400, 8), finalize(450)],
    ])
    t = open_trace(folder)
    assert t.format == "native" and t.num_ranks == 2
    calls = list(t.calls(0))
    assert [c.name for c in calls] == ["MPI_Init", "MPI_Send", "MPI_Allreduce", "MPI_Finalize"]
    s = calls[1]
    assert (s.kind, s.peer, s.tag, s.bytes, s.t_entry_ns, s.t_exit_ns) == ("send", 1, 7, 64, 100, 200)
    w = list(t.calls(1))[2]
    assert w.kind == "complete" and w.completions == [(0x44, 0, 7, 64)]
