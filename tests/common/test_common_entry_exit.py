"""A job that succeeded ends without the interpreter's teardown (scievals.common.entry), yet
with everything a normal exit does that matters: exit handlers, the log, finished threads."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"

# A job's process as Snakemake starts it: a `snakemake` object in __main__, then the entry.
JOB = textwrap.dedent("""
    import atexit, os, sys, threading, time
    from types import SimpleNamespace as NS
    sys.path.insert(0, {scripts!r})

    class Params(NS):
        def keys(self):
            return vars(self).keys()

    class Wildcards(dict):
        pass

    snakemake = NS(rule="toy_score", log=["job.log"], wildcards=Wildcards(), output=["out.txt"],
                   params=Params())

    from scievals.common.entry import run

    real_exit = os._exit

    def spying_exit(code):  # records that the job ended through os._exit (no teardown)
        open("os_exit.txt", "w").write(str(code))
        real_exit(code)

    os._exit = spying_exit
    atexit.register(lambda: open("atexit.txt", "w").write("ran"))

    def job(smk):
        import logging
        logging.getLogger("scievals").info("last line of the job")
        if {late_thread!r}:
            def late():
                time.sleep(0.3)
                open("late.txt", "w").write("written")
            threading.Thread(target=late).start()
        open("out.txt", "w").write("done")

    run(snakemake, job)
""")


def _job(tmp_path: Path, late_thread: bool) -> subprocess.CompletedProcess:
    script = tmp_path / "job.py"
    script.write_text(JOB.format(scripts=str(SCRIPTS), late_thread=late_thread))
    return subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, check=False)


def test_a_job_that_succeeded_skips_the_teardown_but_not_its_exit_work(tmp_path):
    done = _job(tmp_path, late_thread=False)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "os_exit.txt").read_text() == "0"  # ended by os._exit: no teardown
    assert (tmp_path / "atexit.txt").read_text() == "ran"  # exit handlers ran
    assert "last line of the job" in (tmp_path / "job.log").read_text()  # log flushed
    assert (tmp_path / "out.txt").read_text() == "done"


def test_a_thread_still_running_gets_the_normal_exit_that_waits_for_it(tmp_path):
    done = _job(tmp_path, late_thread=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "late.txt").read_text() == "written"
    assert not (tmp_path / "os_exit.txt").exists()  # Python's own exit, which waited
    assert (tmp_path / "atexit.txt").read_text() == "ran"


INTERRUPTED_JOB = textwrap.dedent("""
    import signal, os, sys
    from types import SimpleNamespace as NS
    sys.path.insert(0, {scripts!r})

    class Params(NS):
        def keys(self):
            return vars(self).keys()

    snakemake = NS(rule="gating_predict_llm", log=["job.log"], wildcards=dict(model="m"),
                   output=["out.jsonl"], params=Params())
    from scievals.common.entry import run

    def job(smk):
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C in the middle of the job

    run(snakemake, job)
""")


def test_ctrl_c_in_a_job_is_one_line_and_exit_code_130(tmp_path):
    """Issue 29 point 6: no chained traceback; the line is kept for the end of the run."""
    script = tmp_path / "job.py"
    script.write_text(INTERRUPTED_JOB.format(scripts=str(SCRIPTS)))
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.returncode == 130
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().endswith("ERROR scievals: interrupted")
    [saved] = (tmp_path / "logs" / "notices").glob("gating_predict_llm*.jsonl")
    assert '"kind": "interrupted"' in saved.read_text()
