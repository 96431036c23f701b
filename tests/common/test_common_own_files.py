"""Own prediction files where they are listed (issue 19, items 5 and 11).

A named pipe among the own files blocked the import jobs forever; a model name such as
``my.reference`` collided with model ``my``'s reference table. Both are refused in one line
while the models are listed, before any job.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest
from scievals.common.errors import ScievalsError
from scievals.common.io import read_jsonl, read_user_text, user_file
from scievals.common.workflow import RESERVED_PARTS, byo_prediction_models

from tests.workflow.conftest import copy_workflow

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")


def test_named_pipe_in_the_predictions_folder_is_refused_when_listed(tmp_path):
    (tmp_path / "good.jsonl").write_text("{}\n")
    os.mkfifo(tmp_path / "pipe.jsonl")
    with pytest.raises(ScievalsError) as caught:
        byo_prediction_models(str(tmp_path), ".jsonl", [])
    message = caught.value.one_line()
    assert "pipe.jsonl" in message and "not a regular file" in message
    assert "\n" not in message


def test_folder_named_like_an_own_file_is_refused(tmp_path):
    (tmp_path / "folder.csv").mkdir()
    with pytest.raises(ScievalsError, match="folder.csv: not a regular file"):
        byo_prediction_models(str(tmp_path), ".csv", [])


def test_named_pipe_given_to_a_reader_fails_at_once_instead_of_blocking(tmp_path):
    pipe = tmp_path / "pipe.jsonl"
    os.mkfifo(pipe)
    outcome = {}

    def read():
        try:
            read_jsonl(pipe)
        except ScievalsError as exc:
            outcome["error"] = exc.one_line()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(5)
    if reader.is_alive():  # unblock the thread so the test process can end
        with open(pipe, "w"):
            pass
        pytest.fail("reading a named pipe blocked")
    assert "not a regular file" in outcome["error"]
    for reader_call in (user_file, read_user_text):
        with pytest.raises(ScievalsError, match="not a regular file"):
            reader_call(pipe)


@pytest.mark.parametrize("name", ["my.reference", "my.per_case", "my.per_article", "my.usage",
                                  "my.Reference", "a.b.review"])
def test_model_names_that_collide_with_output_names_are_refused(tmp_path, name):
    (tmp_path / "my.csv").write_text("x\n")
    (tmp_path / f"{name}.csv").write_text("x\n")
    with pytest.raises(ScievalsError) as caught:
        byo_prediction_models(str(tmp_path), ".csv", [])
    message = caught.value.one_line()
    part = name.rsplit(".", 1)[1]
    assert f"{name}.csv" in message and f"ends in '.{part}'" in message
    assert "rename the file" in message


def test_names_that_only_contain_a_reserved_word_are_fine(tmp_path):
    for name in ("reference", "my-reference", "usage.v2", "per_case_model"):
        (tmp_path / f"{name}.csv").write_text("x\n")
    assert byo_prediction_models(str(tmp_path), ".csv", []) == sorted(
        ["reference", "my-reference", "usage.v2", "per_case_model"])
    assert "reference" in RESERVED_PARTS


@pytest.mark.slow
def test_colliding_own_file_stops_the_dry_run_in_one_line(tmp_path):
    # The probe: predictions/abdev/my.csv beside my.reference.csv gave Snakemake's
    # AmbiguousRuleException ("use the ruleorder directive").
    work = copy_workflow(tmp_path / "wf")
    own = work / "predictions" / "abdev"
    own.mkdir(parents=True)
    header = "antibody_name,HIC\n"
    (own / "my.csv").write_text(header)
    (own / "my.reference.csv").write_text(header)
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-n", "results/summary.csv"],
                          cwd=work, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    text = proc.stdout + proc.stderr
    assert "my.reference.csv: model name 'my.reference' ends in '.reference'" in text
    assert "AmbiguousRuleException" not in text and "Traceback" not in text


def test_an_own_file_named_like_a_configured_model_is_one_clear_error(tmp_path):
    """Issue 29 point 6: instead of Snakemake's AmbiguousRuleException about ruleorder."""
    (tmp_path / "random.csv").write_text("antibody_name,HIC\n")
    with pytest.raises(ScievalsError) as err:
        byo_prediction_models(str(tmp_path), ".csv", ["random", "ridge_descriptors"])
    line = err.value.one_line()
    assert "random.csv: own file named like the configured model 'random'" in line
    assert "my_random.csv" in line


def test_the_own_sha256_param_follows_the_bytes_not_the_mtime(tmp_path):
    """Issue 34 item 5: two own files swapped with `mv` (mtimes kept) must change the import
    rules' param, and a touch that keeps the bytes must not."""
    import os
    from types import SimpleNamespace

    from scievals.common.workflow import own_content

    def wildcards(**values):
        return SimpleNamespace(items=lambda: values.items())

    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("antibody_name,HIC\nx,1\n")
    b.write_text("antibody_name,HIC\nx,2\n")
    # a fresh param function per parse, as each snakemake run builds its rules anew
    def batch():
        return own_content([str(a), str(b)])(wildcards())

    def one(model):
        return own_content(str(tmp_path / "{model}.csv"))(wildcards(model=model))

    first, first_a, first_b = batch(), one("a"), one("b")
    assert len({first, first_a, first_b}) == 3 and len(first) == 64
    os.utime(a, (1, 1))  # touched, same bytes: same param
    assert (batch(), one("a")) == (first, first_a)
    stamps = a.stat().st_mtime_ns, b.stat().st_mtime_ns
    os.rename(a, tmp_path / "t")
    os.rename(b, a)
    os.rename(tmp_path / "t", b)
    assert (b.stat().st_mtime_ns, a.stat().st_mtime_ns) == stamps  # mv kept each mtime
    assert batch() != first
    assert one("a") != first_a and one("b") != first_b  # each name's param changed
    b.unlink()  # unreadable: a param of its own (the import job then names the problem)
    assert one("b") not in (first_a, first_b)
