"""An own abdev file is checked before it is copied into results/ (issue 34 item 8): a file whose
first line is not a prediction table's header is refused in one line naming it, with the same
words the full validation uses (scievals.abdev.own_header, scripts/copy_own.py)."""

from __future__ import annotations

import pytest
from scievals.abdev.own_header import check_own_header
from scievals.abdev.validate import validate_prediction_file
from scievals.common.errors import ScievalsError

PASSWD = "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"


@pytest.mark.parametrize("header", ["antibody_name,HIC", "\ufeffHIC,antibody_name,Tm2",
                                    '"antibody_name","AC-SINS_pH7.4"', "\n\nantibody_name,HIC"])
def test_a_prediction_tables_header_passes(tmp_path, header):
    path = tmp_path / "mine.csv"
    path.write_text(f"{header}\nabc,1\n", encoding="utf-8")
    check_own_header(path)  # no error
    # and the full validation reads the same header (blank lines skipped, as pandas does)
    assert not any("Missing required column" in e or "No property columns" in e
                   for e in validate_prediction_file(path).errors)


def test_a_link_to_a_system_file_is_refused_without_its_content(tmp_path):
    target = tmp_path / "passwd"
    target.write_text(PASSWD)
    (tmp_path / "y.csv").symlink_to(target)
    with pytest.raises(ScievalsError) as caught:
        check_own_header(tmp_path / "y.csv")
    line = caught.value.one_line()
    assert line.startswith(f"{tmp_path / 'y.csv'}: Missing required column 'antibody_name'; "
                           "No property columns found")
    problem = caught.value.problem + caught.value.fix
    assert "root" not in problem and "daemon" not in problem  # nothing of the file is echoed


@pytest.mark.parametrize(("data", "problem"), [
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not UTF-8 text"),
    (b"antibody_name,HIC\x00\x00\n", "not a text file (it holds NUL bytes)"),
])
def test_a_binary_file_is_refused(tmp_path, data, problem):
    path = tmp_path / "x.csv"
    path.write_bytes(data)
    with pytest.raises(ScievalsError) as caught:
        check_own_header(path)
    assert caught.value.problem.startswith(problem)


def test_a_utf8_character_cut_by_the_read_is_not_a_refusal(tmp_path):
    # 64 KiB read: a header of 65,535 ASCII bytes then a 2-byte 'é' is cut after its first byte
    path = tmp_path / "long.csv"
    path.write_bytes(b"antibody_name,HIC," + b"a" * (65535 - 18) + "é\n".encode())
    check_own_header(path)  # no error: the full validation judges the long column's name


@pytest.mark.parametrize("separator", [";", "\t", "|"])
def test_another_delimiter_gets_the_words_of_the_full_validation(tmp_path, separator):
    path = tmp_path / "eu.csv"
    path.write_text(f"antibody_name{separator}HIC\nabc{separator}1\n")
    with pytest.raises(ScievalsError) as caught:
        check_own_header(path)
    [full] = validate_prediction_file(path).errors
    assert caught.value.problem == full
    assert "-separated" in full
