"""The measure stage's public Netgauge reading API (measurement.imports.netgauge_reading),
which `profiles build` reads the paper artifact with."""

from __future__ import annotations

import io
import tarfile

import numpy as np
import pytest

from cloudnoise.errors import CloudnoiseError
from cloudnoise.measurement.imports.netgauge_reading import number_rows, run_files


def test_run_files_from_a_folder_and_a_missing_name(tmp_path):
    (tmp_path / "ng_osnoise.out").write_bytes(b"0\t1\n")
    (tmp_path / "other.out").write_bytes(b"x")
    assert run_files(tmp_path, ("ng_osnoise.out",)) == {"ng_osnoise.out": b"0\t1\n"}
    with pytest.raises(CloudnoiseError, match="the run has no ng_netnoise_mpi_lat.out"):
        run_files(tmp_path, ("ng_osnoise.out", "ng_netnoise_mpi_lat.out"))


def test_run_files_from_a_tarball(tmp_path):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:xz") as tar:
        for name, data in (("a.out", b"1"), ("b.out", b"2")):
            info = tarfile.TarInfo(f"2022_01_01_00_00_00/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    path = tmp_path / "2022_01_01_00_00_00.tar.xz"
    path.write_bytes(buf.getvalue())
    assert run_files(path, ("b.out",)) == {"b.out": b"2"}


def test_number_rows_keeps_nan_where_allowed_and_drops_a_cut_last_line():
    data = b"#size\trtt\n1\t2.5\n1\tnan\n\n1\t3.25\n1"
    rows = number_rows(data, "f", 2, nan_ok=(1,), cut_short_ok=True)
    assert rows[:, 0].tolist() == [1, 1, 1]
    assert rows[[0, 2], 1].tolist() == [2.5, 3.25] and np.isnan(rows[1, 1])


@pytest.mark.parametrize("data, words", [
    (b"1\t2\n1", "f: line 2: the file ends inside a line"),  # cut short, not allowed
    (b"1\tnan\n", "f: line 1: .* not finite"),  # NaN where not allowed
    (b"1\t2\n1\n1\t2\n", "f: line 2: expected 2 numbers"),  # a short row inside the file
])
def test_number_rows_damage_is_one_line_naming_the_line(data, words):
    with pytest.raises(CloudnoiseError, match=words) as err:
        number_rows(data, "f", 2)
    assert "\n" not in str(err.value)
