"""Jobs run from one shell command with their facts as JSON (scievals.common.job_spec): the
entry script sees what Snakemake's `script:` directive would have shown it."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
from scievals.common.job_spec import JOB_PARAM, SPEC_DIR, Named, decode, job_param

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"

# A workflow with the job runner and one rule shaped like ours: named and unnamed inputs
# (one name holding two files), named outputs, a log, a wildcard, threads, and params
# that are plain data, a function of the wildcards and a function of the output.
SNAKEFILE = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, os.path.join(workflow.basedir, "scripts"))
    from scievals.common.job_spec import job_command, job_param, set_runner

    set_runner(sys.executable, os.path.join(workflow.basedir, "scripts", "job.py"))
    JOB_SHELL = job_command()

    PARAMS = {"section": {"seed": 3, "models": ["a", "b"], "nan": float("nan")},
              "tag": lambda wildcards: "tag-" + wildcards.sample,
              "out_dir": lambda wildcards, output: os.path.dirname(output.table)}

    rule all:
        input: "out/s1/table.csv"

    rule make_inputs:
        output: "in/one.txt", "in/two.txt", "in/free.txt"
        shell: "touch {output}"

    rule toy:
        input: "in/free.txt", pair=["in/one.txt", "in/two.txt"]
        output: table="out/{sample}/table.csv", seen="out/{sample}/seen.json"
        log: "logs/toy_{sample}.log"
        threads: 2
        params:
            **PARAMS,
            job=job_param("toy", "entry.py", PARAMS),
        shell:
            JOB_SHELL
""")

# The entry script records what it saw (the `snakemake` global, as in our entry scripts).
ENTRY = textwrap.dedent("""
    import json, math, sys
    smk = snakemake
    seen = {"rule": smk.rule, "input0": smk.input[0], "inputs": list(smk.input),
            "pair": list(smk.input.pair), "input_items": dict(smk.input.items()),
            "table": smk.output.table, "outputs": list(smk.output),
            "params": {k: getattr(smk.params, k) for k in smk.params.keys()},
            "nan": math.isnan(smk.params.section["nan"]), "no_job": not hasattr(smk.params, "job"),
            "wildcards": dict(smk.wildcards.items()), "sample": smk.wildcards.sample,
            "log": list(smk.log), "threads": smk.threads, "scriptdir": smk.scriptdir,
            "main_has_snakemake": hasattr(sys.modules["__main__"], "snakemake"),
            "snakemake_imported": "snakemake" in sys.modules}
    seen["params"]["section"].pop("nan")
    open(smk.output.table, "w").write("x\\n")
    open(smk.output.seen, "w").write(json.dumps(seen))
""")


def _workflow(tmp_path: Path) -> Path:
    scripts = tmp_path / "scripts"
    (scripts / "scievals" / "common").mkdir(parents=True)
    shutil.copy(SCRIPTS / "job.py", scripts / "job.py")
    # job_spec and what it imports (the redaction of URL credentials in params)
    for name in ("scievals/__init__.py", "scievals/common/__init__.py",
                 "scievals/common/job_spec.py", "scievals/common/redaction.py",
                 "scievals/common/errors.py"):
        shutil.copy(SCRIPTS / name, scripts / name)
    (scripts / "entry.py").write_text(ENTRY)
    (tmp_path / "Snakefile").write_text(SNAKEFILE)
    return tmp_path


@pytest.mark.slow
def test_an_entry_script_sees_its_job_as_snakemakes_script_directive_shows_it(tmp_path):
    work = _workflow(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2"], cwd=work,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen = json.loads((work / "out/s1/seen.json").read_text())
    # Snakemake orders inputs as given: the unnamed one, then the named pair
    assert seen["inputs"] == ["in/free.txt", "in/one.txt", "in/two.txt"]
    assert seen["input0"] == "in/free.txt"
    assert seen["pair"] == ["in/one.txt", "in/two.txt"]
    assert seen["input_items"] == {"pair": ["in/one.txt", "in/two.txt"]}
    assert seen["table"] == "out/s1/table.csv"
    assert seen["outputs"] == ["out/s1/table.csv", "out/s1/seen.json"]
    # plain data as given; functions called with the arguments they name
    assert seen["params"] == {"section": {"seed": 3, "models": ["a", "b"]}, "tag": "tag-s1",
                              "out_dir": "out/s1"}
    assert seen["nan"] and seen["no_job"]
    assert seen["wildcards"] == {"sample": "s1"} and seen["sample"] == "s1"
    assert seen["log"] == ["logs/toy_s1.log"] and seen["threads"] == 2
    assert seen["rule"] == "toy"
    assert Path(seen["scriptdir"]) == (work / "scripts").resolve()
    # the entry runs as __main__ with its `snakemake` global, and Snakemake is not imported
    assert seen["main_has_snakemake"] and not seen["snakemake_imported"]


@pytest.mark.slow
def test_the_command_text_does_not_change_when_the_checkout_moves(tmp_path):
    """Snakemake re-runs a shell job whose command text changed: the text names no path."""
    first = _workflow(tmp_path / "a")
    run = [sys.executable, "-m", "snakemake", "--cores", "2"]
    assert subprocess.run(run, cwd=first, capture_output=True, timeout=300,
                          check=False).returncode == 0
    moved = tmp_path / "b"
    shutil.copytree(first, moved, symlinks=True)
    proc = subprocess.run(run + ["-n"], cwd=moved, capture_output=True, text=True, timeout=300,
                          check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Nothing to be done" in proc.stdout + proc.stderr


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # job files go under .snakemake/ of the working directory


def test_the_param_is_a_short_path_to_the_jobs_json_named_by_its_content(tmp_path):
    """Issue 29 point 6: Snakemake prints a failed job's command; it names a file now, not
    1,300 characters of JSON. Same facts, same file; other facts, another file."""
    path = _spec({"section": {"models": ["m"] * 200}})
    assert len(path) < 80 and path.startswith(".snakemake/scievals/jobs/")
    text = (tmp_path / path).read_text()
    assert json.loads(text)["params"]["section"]["models"] == ["m"] * 200
    assert path.endswith(hashlib.sha256(text.encode()).hexdigest()[:24] + ".json")
    assert _spec({"section": {"models": ["m"] * 200}}) == path
    assert _spec({"section": {"models": ["m"]}}) != path
    entry, job = decode(path, threads=1, log=[], scriptdir="/s")
    assert entry == "e.py" and job.params.section == {"models": ["m"] * 200}


def _spec(params, rule="r", script="e.py", wildcards=None):
    wildcards = Named((wildcards or {}).values(), wildcards or {})
    files = Named(["a.csv", "b.csv", "c.csv"], {"truth": "a.csv", "pair": ["b.csv", "c.csv"]})
    out = Named(["o.csv"], {"table": "o.csv"})
    return job_param(rule, script, params)(wildcards=wildcards, input=files, output=out)


def test_decode_gives_back_the_files_params_and_wildcards():
    entry, job = decode(_spec({"k": 1, "f": lambda wildcards: wildcards.m + "!"},
                              wildcards={"m": "x"}), threads=4, log=["l.log"], scriptdir="/s")
    assert entry == "e.py"
    assert job.input == ["a.csv", "b.csv", "c.csv"] and job.input.truth == "a.csv"
    assert job.input.pair == ["b.csv", "c.csv"]
    assert dict(job.input.items()) == {"truth": "a.csv", "pair": ["b.csv", "c.csv"]}
    assert job.output[0] == "o.csv" and job.output.table == "o.csv"
    assert dict(job.params.items()) == {"k": 1, "f": "x!"} and list(job.params.keys()) == ["k", "f"]
    assert job.wildcards.m == "x" and job.threads == 4 and job.log[0] == "l.log"
    assert len(job.log) == 1 and job.scriptdir == "/s" and job.rule == "r"
    assert not hasattr(job.params, "missing") and getattr(job.params, "missing", None) is None
    assert JOB_PARAM not in dict(job.params.items())


def test_a_params_function_may_ask_only_for_what_snakemake_passes():
    with pytest.raises(ValueError, match="may take wildcards, input, output, not threads"):
        _spec({"p": lambda wildcards, threads: 1})


def test_a_param_that_is_not_plain_data_is_one_clear_error():
    with pytest.raises(ValueError, match="rule r: a param is not plain data"):
        _spec({"p": SimpleNamespace(x=1)})


def test_a_job_too_large_for_any_command_line_is_one_short_param(tmp_path):
    """Issue 28: the facts of a summary of 10,000 own files (350 KB) used to stop the run at a
    97 KB bound; they have no limit but the disk's. 300,000 characters: more than twice the
    128 KiB Linux allows one command-line argument."""
    path = _spec({"p": "x" * 300_000})
    assert len(path) < 80
    _, job = decode(path, threads=1, log=[], scriptdir="/s")
    assert job.params.p == "x" * 300_000


def test_a_job_file_that_is_gone_is_one_line_naming_it_and_the_way_out(tmp_path):
    path = _spec({"p": 1})
    (tmp_path / path).unlink()
    with pytest.raises(SystemExit, match=r"scievals/jobs/\w+\.json: this job's facts are gone "
                       r"\(No such file or directory\).*run the same snakemake command again"):
        decode(path, threads=1, log=[], scriptdir="/s")


def test_an_unwritable_job_folder_is_one_clear_error(tmp_path):
    (tmp_path / ".snakemake").write_text("a file where the folder would go")
    # it says which path is in the way (issue 46 item 5), not only "cannot be written"
    with pytest.raises(SystemExit, match=r"^error: \.snakemake/scievals/jobs/\w{24}\.json: job "
                       r"file not written: \.snakemake is a file, not a folder \(.*\); move "
                       "that file away, then run the same snakemake command again$"):
        _spec({"p": 1})


@pytest.mark.parametrize(("code", "cause", "fix"), [
    (errno.ENOSPC, "disk full", "free space on that disk"),
    (errno.EDQUOT, "disk quota full", "free space on that disk"),
    (errno.EACCES, "permission denied", "make that folder writable for you"),
    (errno.EROFS, "read-only file system", "run in a working directory on a writable disk"),
])
def test_a_job_file_that_cannot_be_written_says_why_in_one_line(monkeypatch, code, cause, fix):
    """Issue 34 item 4: a full jobs folder said "make that folder writable" (it was writable,
    only full). The kernel's answer is simulated as tests/common/test_common_full_disk.py does."""
    def refused(self, data):
        raise OSError(code, os.strerror(code), str(self))

    monkeypatch.setattr(Path, "write_bytes", refused)
    with pytest.raises(SystemExit) as caught:
        _spec({"p": 1})
    line = str(caught.value)
    assert "\n" not in line and line.startswith("error: .snakemake/scievals/jobs/")
    assert f": job file not written: {cause} ({os.strerror(code)}); {fix}" in line
    assert not list(Path(SPEC_DIR).glob(".*.tmp"))  # no temporary file left behind


def test_a_damaged_job_file_is_written_again_when_the_jobs_are_built(tmp_path):
    """Issue 34 item 4: a truncated job file was trusted by its name, and every later run failed
    with a JSONDecodeError naming no file."""
    path = _spec({"p": list(range(100))})
    whole = (tmp_path / path).read_bytes()
    for damaged in (whole[:40], b"", whole.replace(b"99", b"98")):
        (tmp_path / path).write_bytes(damaged)
        assert _spec({"p": list(range(100))}) == path
        assert (tmp_path / path).read_bytes() == whole
        assert decode(path, threads=1, log=[], scriptdir="/s")[1].params.p == list(range(100))


def test_a_job_that_finds_its_file_damaged_is_one_line_naming_it_and_the_way_out(tmp_path):
    path = _spec({"p": 1})
    whole = (tmp_path / path).read_bytes()
    (tmp_path / path).write_bytes(whole[:25])
    with pytest.raises(SystemExit) as caught:
        decode(path, threads=1, log=[], scriptdir="/s")
    assert str(caught.value) == (
        f"error: {path}: this job file is damaged (its content does not match its name, a hash "
        "of what was written: 25 bytes left); run the same snakemake command again (the "
        "workflow writes it when it builds its jobs)")


# A rule whose facts outgrow a command line: 7,000 inputs (21 bytes each in JSON, 147 KB: over the
# 128 KiB Linux allows one argument) and a param from the config.
BIG_SNAKEFILE = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, os.path.join(workflow.basedir, "scripts"))
    from scievals.common.job_spec import job_command, job_param, set_runner

    set_runner(sys.executable, os.path.join(workflow.basedir, "scripts", "job.py"))
    PARAMS = {"tag": config.get("tag", "a")}

    rule many:
        input: [f"in/file_{i:05d}.txt" for i in range(7000)]
        output: "out/seen.json"
        log: "logs/many.log"
        params:
            **PARAMS,
            job=job_param("many", "entry.py", PARAMS),
        shell:
            job_command()
""")

BIG_ENTRY = textwrap.dedent("""
    import json
    inputs = list(snakemake.input)
    open(snakemake.output[0], "w").write(json.dumps(
        {"n": len(inputs), "first": inputs[0], "last": inputs[-1], "tag": snakemake.params.tag}))
""")


@pytest.mark.slow
def test_a_job_with_more_facts_than_a_command_line_carries_runs_and_reruns_on_a_change(tmp_path):
    work = _workflow(tmp_path)
    (work / "Snakefile").write_text(BIG_SNAKEFILE)
    (work / "scripts" / "entry.py").write_text(BIG_ENTRY)
    (work / "in").mkdir()
    for i in range(7000):
        (work / "in" / f"file_{i:05d}.txt").touch()
    run = [sys.executable, "-m", "snakemake", "--cores", "2"]
    proc = subprocess.run(run, cwd=work, capture_output=True, text=True, timeout=300,
                          check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen = json.loads((work / "out/seen.json").read_text())
    assert seen == {"n": 7000, "first": "in/file_00000.txt", "last": "in/file_06999.txt",
                    "tag": "a"}
    (spec,) = (work / SPEC_DIR).glob("*.json")  # one job, one job file
    assert len(spec.read_bytes()) > 128 * 1024  # more than one argument may carry
    # unchanged facts: nothing to do; a changed param: the job runs again with the new one
    again = subprocess.run(run + ["-n"], cwd=work, capture_output=True, text=True, timeout=300,
                           check=False)
    assert "Nothing to be done" in again.stdout + again.stderr
    changed = subprocess.run(run + ["--config", "tag=b"], cwd=work, capture_output=True,
                             text=True, timeout=300, check=False)
    assert changed.returncode == 0, changed.stderr[-3000:]
    assert json.loads((work / "out/seen.json").read_text())["tag"] == "b"
    assert len(list((work / SPEC_DIR).glob("*.json"))) == 2


@pytest.mark.parametrize("blocker", ["dangling link", "file"])
def test_a_jobs_folder_that_is_a_dangling_link_or_a_file_says_what_it_is(tmp_path, blocker):
    """Issue 46 item 5: a jobs folder that is a symbolic link to nothing said "(File exists)"."""
    Path(".snakemake/scievals").mkdir(parents=True)
    if blocker == "file":
        Path(SPEC_DIR).write_text("")
        expected = (f"{SPEC_DIR.as_posix()} is a file, not a folder (File exists); move that "
                    "file away, then "
                    "run the same snakemake command again")
    else:
        Path(SPEC_DIR).symlink_to(tmp_path / "gone")
        expected = (f"the folder {SPEC_DIR.as_posix()} is a symbolic link to {tmp_path}/gone, "
                    "which does not exist (File exists); create that folder or remove the "
                    "link, then run the same snakemake command again")
    with pytest.raises(SystemExit) as caught:
        _spec({"p": 1})
    line = str(caught.value)
    assert "\n" not in line and line.startswith("error: .snakemake/scievals/jobs/")
    assert f": job file not written: {expected}" in line
