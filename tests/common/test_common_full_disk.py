"""A full disk is named where it is (issue 30, item 13).

A full ``logs/`` printed ten ``--- Logging error ---`` tracebacks (one per log line); a full
``data/raw`` blamed the intact embedded source file, because ``shutil.copyfile`` names the
source first in the error it raises. /dev/full answers every write with ENOSPC, as a full
disk does.
"""

from __future__ import annotations

import errno
import logging
import os
import shutil

import pytest
from scievals.common.entry import setup_logging
from scievals.common.errors import machine_error

FULL = "/dev/full"
pytestmark = pytest.mark.skipif(not os.path.exists(FULL), reason="needs /dev/full (Linux)")


@pytest.fixture(autouse=True)
def restore_logging():
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    for handler in root.handlers:
        if handler not in handlers:
            handler.close()
    root.handlers[:], root.level = handlers, level


def test_a_log_file_on_a_full_disk_is_one_line_and_the_job_goes_on(capfd):
    setup_logging(FULL)
    for i in range(10):
        logging.getLogger("scievals").warning("line %d", i)
    err = capfd.readouterr().err
    assert "--- Logging error ---" not in err and "Traceback" not in err
    [said] = [line for line in err.splitlines() if "cannot be written" in line]
    assert said == (f"scievals: the log file {FULL} cannot be written (No space left on "
                    "device); this job logs to stderr only (free space or fix the logs/ folder)")
    # every line still reaches stderr
    assert all(f"line {i}" in err for i in range(10))


def test_a_copy_onto_a_full_disk_names_the_destination_not_the_source(tmp_path, monkeypatch):
    source = tmp_path / "embedded.csv"
    source.write_text("a,b\n1,2\n")
    dest = tmp_path / "raw" / "copy.csv"
    dest.parent.mkdir()

    def full(*args, **kwargs):  # the kernel's answer when the destination's disk is full
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "sendfile", full)
    with pytest.raises(OSError) as caught:
        shutil.copyfile(source, dest)
    assert caught.value.filename == str(source)  # what shutil says: the source first
    line = machine_error(caught.value).one_line()
    assert line.startswith(f"{dest}: no space left on device, writing a copy of {source}")
    assert line.endswith("(free disk space (or point the output elsewhere), then re-run)")


def test_an_error_with_one_file_name_still_names_it():
    exc = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "results/x.csv")
    assert machine_error(exc).one_line().startswith("results/x.csv: no space left on device")
