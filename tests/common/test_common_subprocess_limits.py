"""One helper for commands we did not write (issue 19 items 1, 2, 5): scrubbed
environment, own process group killed on timeout and at the end, memory/CPU limits."""

from __future__ import annotations

import os
import sys
import time

import psutil  # a Snakemake dependency
import pytest
from scievals.common import subprocess_limits
from scievals.common.subprocess_limits import ENV_KEEP, TOKEN_VAR, run_limited, scrubbed_env

FAKE_KEY = "sk-test-fake-key-0123456789abcdef"


def alive_in_group(pgid: int) -> list[int]:
    """Processes of group ``pgid`` that still run (zombies waiting for a reaper do not)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return []
    found = []
    for proc in psutil.process_iter(["pid", "status"]):
        try:
            if os.getpgid(proc.pid) == pgid and proc.info["status"] != psutil.STATUS_ZOMBIE:
                found.append(proc.pid)
        except (ProcessLookupError, psutil.Error):
            pass
    return found


def test_env_is_scrubbed_and_home_is_the_working_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("SOME_TOKEN", "hidden")
    done = run_limited(["env"], cwd=tmp_path, timeout_s=10)
    names = {line.split("=", 1)[0] for line in done.stdout.decode().splitlines()}
    assert FAKE_KEY.encode() not in done.stdout
    # HOME, and the random token that marks the command's descendants for the sweep
    assert names <= set(ENV_KEEP) | {"HOME", TOKEN_VAR}
    assert f"HOME={tmp_path}".encode() in done.stdout
    assert scrubbed_env(tmp_path, {"X": "1"})["X"] == "1"


def test_background_busy_loop_is_killed_with_its_group_on_timeout(tmp_path):
    started = time.monotonic()
    done = run_limited("echo $$; (while :; do :; done) & wait", shell=True, cwd=tmp_path,
                       timeout_s=1)
    leader = int(done.stdout.split()[0])  # the shell leads the group: pgid = its pid
    assert done.timed_out and done.returncode == -9
    assert time.monotonic() - started < 5
    time.sleep(0.2)
    assert alive_in_group(leader) == []


def test_what_a_command_leaves_running_is_killed_when_it_ends(tmp_path):
    done = run_limited("echo $$; sleep 60 & echo started", shell=True, cwd=tmp_path,
                       timeout_s=30)
    assert not done.timed_out and done.returncode == 0
    assert done.stdout.split()[1] == b"started"
    time.sleep(0.2)
    assert alive_in_group(int(done.stdout.split()[0])) == []


def test_a_command_that_closes_its_output_still_gets_its_time(tmp_path):
    done = run_limited("exec >&- 2>&-; sleep 0.3; exit 3", shell=True, cwd=tmp_path,
                       timeout_s=10)
    assert (done.returncode, done.timed_out) == (3, False)


@pytest.fixture(params=["prlimit", "preexec"])
def launcher(request, monkeypatch):
    """Both ways the limits are set: util-linux's prlimit (Linux) and, where it is missing,
    the child's preexec_fn."""
    if request.param == "prlimit" and subprocess_limits.PRLIMIT is None:
        pytest.fail("prlimit (util-linux) is missing: apt-get install util-linux")
    if request.param == "preexec":
        monkeypatch.setattr(subprocess_limits, "PRLIMIT", None)
    return request.param


def test_memory_and_cpu_limits(tmp_path, launcher):
    # 3 GiB > the default 2 GiB address-space limit: the allocation fails in the child.
    big = run_limited([sys.executable, "-c", "x = bytearray(3 << 30)"], cwd=tmp_path,
                      timeout_s=30)
    assert big.returncode == 1 and b"MemoryError" in big.stderr
    # 256 MiB fits the default, not a 128 MiB limit.
    fits = [sys.executable, "-c", "x = bytearray(256 << 20)"]
    assert run_limited(fits, cwd=tmp_path, timeout_s=30).returncode == 0
    assert run_limited(fits, cwd=tmp_path, timeout_s=30, memory_mb=128).returncode == 1
    # RLIMIT_CPU = ceil(timeout) + 1 = 2 s for a 1.5 s timeout, so the CPU limit cannot
    # outlast it; a loop that ignores the wall clock is stopped either way.
    spin = run_limited([sys.executable, "-c", "while True: pass"], cwd=tmp_path,
                       timeout_s=1.5)
    assert spin.returncode < 0


def test_relative_writes_land_in_the_working_dir_and_output_is_capped(tmp_path):
    from scievals.common.subprocess_limits import OUTPUT_CAP_BYTES

    done = run_limited("echo x > planted.txt; head -c 3000000 /dev/zero", shell=True,
                       cwd=tmp_path, timeout_s=10)
    assert (tmp_path / "planted.txt").read_text() == "x\n"
    assert len(done.stdout) == OUTPUT_CAP_BYTES


def test_missing_program_raises_oserror(tmp_path):
    with pytest.raises(FileNotFoundError):
        run_limited(["no-such-program-scievals"], cwd=tmp_path, timeout_s=1)


def test_a_program_that_cannot_start_raises_what_exec_raises(tmp_path, launcher):
    """Behind prlimit a failed exec would be prlimit's exit status; run_limited raises
    FileNotFoundError / PermissionError as subprocess does without it."""
    with pytest.raises(FileNotFoundError):
        run_limited(["no-such-program-scievals"], cwd=tmp_path, timeout_s=1)
    with pytest.raises(FileNotFoundError):
        run_limited(["./missing.sh"], cwd=tmp_path, timeout_s=1)
    (tmp_path / "plain.sh").write_text("echo hi\n")  # not executable
    with pytest.raises(PermissionError):
        run_limited(["./plain.sh"], cwd=tmp_path, timeout_s=1)
    (tmp_path / "ok.sh").write_text("#!/bin/sh\necho hi\n")
    os.chmod(tmp_path / "ok.sh", 0o755)
    # a relative path is the working directory's, as for exec in the child
    done = run_limited(["./ok.sh"], cwd=tmp_path, timeout_s=5)
    assert (done.returncode, done.stdout) == (0, b"hi\n")
    # a shell command runs under the same limits
    limit = run_limited("ulimit -v; ulimit -t", shell=True, cwd=tmp_path, timeout_s=5,
                        memory_mb=512)
    # ulimit -v is in KiB: 512 MiB = 524288; -t the CPU seconds: ceil(5) + 1 = 6
    assert limit.stdout.split() == [b"524288", b"6"]
