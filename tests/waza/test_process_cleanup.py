"""Nothing a grader, hook or shell command starts survives it, also what left its process
group (issue 30, item 9): on main a script grader's two ``setsid`` busy loops were
reparented to init and kept running after ``waza run`` ended."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import psutil
from scievals.common.subprocess_limits import run_limited
from scievals.waza import hooks
from scievals.waza.graders.base import GraderContext
from scievals.waza.graders.registry import grade

# Two busy loops that each leave the command's session and group (os.setsid) and write
# their own pid to a file; the command exits once both have written.
ESCAPE = """\
import os, subprocess, sys, time
out = sys.argv[1] if len(sys.argv) > 1 else "pids"
child = ("import os, sys\\nos.setsid()\\n"
         "open(sys.argv[1], 'a').write(str(os.getpid()) + ' ')\\nwhile True: pass\\n")
for _ in range(2):
    subprocess.Popen([sys.executable, "-c", child, out])
while not os.path.exists(out) or len(open(out).read().split()) < 2:
    time.sleep(0.01)
"""


def _alive(pids: list[int]) -> list[int]:
    living = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                living.append(pid)
        except psutil.NoSuchProcess:
            pass
    return living


def _pids(path: Path) -> list[int]:
    return [int(p) for p in path.read_text().split()]


def _check_gone(pids: list[int]) -> None:
    assert len(pids) == 2
    time.sleep(0.2)
    left = _alive(pids)
    for pid in left:  # do not leave busy loops behind if the test fails
        psutil.Process(pid).kill()
    assert left == []


def test_run_limited_kills_children_that_called_setsid(tmp_path):
    (tmp_path / "escape.py").write_text(ESCAPE)
    done = run_limited([sys.executable, "escape.py", "pids"], cwd=tmp_path, timeout_s=20)
    assert done.returncode == 0 and not done.timed_out
    _check_gone(_pids(tmp_path / "pids"))


def test_script_grader_setsid_children_do_not_survive(tmp_path):
    script = tmp_path / "g.py"
    pid_file = tmp_path / "grader-pids"
    script.write_text(ESCAPE.replace('sys.argv[1] if len(sys.argv) > 1 else "pids"',
                                     repr(str(pid_file)))
                      + "print('{\"score\": 1, \"passed\": true}')\n")
    result = grade("script", {"script": str(script)}, GraderContext(output="x"))
    assert result.passed is True
    _check_gone(_pids(pid_file))


def test_hook_setsid_children_do_not_survive(tmp_path):
    (tmp_path / "hooks").mkdir()
    (tmp_path / "hooks" / "escape.py").write_text(ESCAPE)
    command = f"{sys.executable} hooks/escape.py hook-pids"
    assert hooks.run_point({"before_run": [{"command": command, "error_on_fail": True}]},
                           "before_run", tmp_path, "eval.yaml") == ""
    _check_gone(_pids(tmp_path / "hook-pids"))
