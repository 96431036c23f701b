"""Run a command we did not write (a grader, an agent's shell command) on a short leash.

Such a command gets:

- a scrubbed environment: only :data:`ENV_KEEP` (never an API key), ``HOME`` = its
  working directory, plus what the caller adds;
- its own session and process group, killed as a whole (``os.killpg``) on timeout *and*
  when the command ends, so nothing it started in the background survives it; a process
  that left the group (``setsid``, a double fork, reparented to init) is found by the
  random :data:`TOKEN_VAR` value every descendant inherits in its environment and killed
  too (:func:`sweep`: on Linux the environments of the pids newer than the command's);
- OS limits set before the command starts: address space (``RLIMIT_AS``), CPU time
  (``RLIMIT_CPU``, a little over the wall-clock timeout) and no core files. Where
  util-linux's ``prlimit`` exists (Linux) it sets them and execs the command, so Python can
  start the child with vfork; elsewhere the child sets them itself between fork and exec
  (``preexec_fn``), which needs a full fork whose cost grows with this process's memory
  (32 ms instead of 9 ms per command from a 581 MB process, docs/waza.md);
- a working directory the caller chooses (the run's temporary workspace), so relative
  writes cannot land in the checkout;
- capped captured output (a flood of stdout cannot fill the job's memory).

One helper for every such command, so the rules above hold everywhere at once.
"""

from __future__ import annotations

import math
import os
import resource
import secrets
import selectors
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil

# The variables a command may see: enough to find programs and print text, nothing secret.
ENV_KEEP = ("PATH", "LANG", "LC_ALL", "TERM", "TZ")
# Set to a fresh random value for each command: marks its descendants, even those that
# leave its process group, so they can be found and killed when it ends.
TOKEN_VAR = "SCIEVALS_RUN_TOKEN"
SWEEP_ROUNDS = 5  # a process may fork while the sweep kills; look again until none is left
DEFAULT_MEMORY_MB = 2048
OUTPUT_CAP_BYTES = 1 << 20  # per stream; the rest is read and dropped
# After the group is killed, how long to wait for its pipes to close: a process that left
# the group (its own setsid) may hold them open; we stop reading rather than wait for it.
GRACE_S = 1.0
_POLL_S = 0.05


@dataclass
class Finished:
    """How a limited command ended: ``timed_out`` when the timeout killed it."""

    returncode: int
    stdout: bytes
    stderr: bytes
    timed_out: bool = False


def scrubbed_env(home: str | os.PathLike, extra: Mapping[str, str] | None = None) -> dict:
    """:data:`ENV_KEEP` from this process, ``HOME`` = ``home``, then ``extra``."""
    env = {key: os.environ[key] for key in ENV_KEEP if key in os.environ}
    env["HOME"] = str(home)
    env.update(extra or {})
    return env


def _limits(memory_mb: int, cpu_s: int):
    """The child's ``preexec_fn``: runs after fork, before exec (so only async-safe work)."""
    memory = memory_mb << 20

    def apply() -> None:
        try:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        except (ValueError, OSError):  # macOS cannot cap the address space; CPU still holds
            pass
        # Soft limit: SIGXCPU; the hard one a second later: SIGKILL.
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


# util-linux's prlimit: sets the limits on itself, then execs the command (None: not here).
PRLIMIT = shutil.which("prlimit")


def _runnable(program: str, cwd: Path, env: Mapping[str, str]) -> None:
    """Raise what exec would (FileNotFoundError, PermissionError) when ``program`` cannot be
    started: behind prlimit a failed exec would be prlimit's exit status instead."""
    if os.sep in program:
        path = cwd / program
        if not path.is_file():
            raise FileNotFoundError(2, "No such file or directory", program)
        if not os.access(path, os.X_OK):
            raise PermissionError(13, "Permission denied", program)
        return
    if shutil.which(program, path=env.get("PATH", os.defpath)) is not None:
        return
    candidates = [Path(d) / program for d in env.get("PATH", os.defpath).split(os.pathsep) if d]
    if any(c.is_file() for c in candidates):
        raise PermissionError(13, "Permission denied", program)
    raise FileNotFoundError(2, "No such file or directory", program)


def _launch(argv: Sequence[str] | str, shell: bool, cwd: Path, env: Mapping[str, str],
            memory_mb: int, cpu_s: int) -> tuple[list[str] | str, object]:
    """(what to Popen, its preexec_fn): through prlimit where it exists, else preexec."""
    if PRLIMIT is None:
        return argv, _limits(memory_mb, cpu_s)
    command = ["/bin/sh", "-c", argv] if shell else list(argv)
    _runnable(command[0], cwd, env)
    return [PRLIMIT, f"--as={memory_mb << 20}", f"--cpu={cpu_s}:{cpu_s + 1}", "--core=0",
            "--", *command], None


def kill_group(pgid: int) -> None:
    """SIGKILL every process of the group (gone already: nothing to do)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _marked(pids: Sequence[int], needle: bytes) -> list[int]:
    """Those of ``pids`` whose environment (``/proc/<pid>/environ``) holds ``needle``."""
    found = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/environ", "rb") as handle:
                if needle in handle.read().split(b"\0"):
                    found.append(pid)
        except OSError:  # gone, or another user's
            continue
    return found


def _newer_pids(leader: int) -> list[int] | None:
    """The pids above ``leader``'s: every process started after it, as long as the pid
    counter has not wrapped since (``ns_last_pid`` still above it); None when it has, or
    without ``/proc``."""
    try:
        with open("/proc/sys/kernel/ns_last_pid", encoding="ascii") as handle:
            last = int(handle.read())
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except (OSError, ValueError):
        return None
    return [pid for pid in pids if pid > leader] if last >= leader else None


def _marked_anywhere(needle: bytes, since: float) -> list[int]:
    """Every process started since ``since`` whose environment holds ``needle`` (psutil:
    the slow path, for a wrapped pid counter or a system without ``/proc``)."""
    name, _, value = needle.decode().partition("=")
    found = []
    for proc in psutil.process_iter(["create_time"]):
        try:
            if (proc.info["create_time"] or 0) >= since and proc.environ().get(name) == value:
                found.append(proc.pid)
        except (psutil.Error, OSError):  # gone, a zombie, or not ours to read
            continue
    return found


def sweep(token: str, leader: int, since: float) -> int:
    """SIGKILL every process started after ``leader`` (at ``since``) whose environment
    carries ``TOKEN_VAR=token``, repeated until none is left; how many were killed. On
    Linux only the pids above the leader's are read (a few files, not the whole table);
    processes of other users (environment unreadable) are skipped."""
    needle, me, killed = f"{TOKEN_VAR}={token}".encode(), os.getpid(), 0
    for _ in range(SWEEP_ROUNDS):
        newer = _newer_pids(leader)
        found = [pid for pid in (_marked(newer, needle) if newer is not None
                                 else _marked_anywhere(needle, since)) if pid != me]
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError):
                pass
        if not found:
            break
    return killed


def _started(pid: int) -> float:
    """When ``pid`` started (psutil's create_time); 0 (look at everything) if unknown."""
    try:
        return psutil.Process(pid).create_time()
    except psutil.Error:
        return 0.0


def run_limited(argv: Sequence[str] | str, *, cwd: str | os.PathLike, timeout_s: float,
                input: bytes = b"", env: Mapping[str, str] | None = None,
                memory_mb: int = DEFAULT_MEMORY_MB, shell: bool = False,
                merge_stderr: bool = False) -> Finished:
    """Run ``argv`` under the rules of this module; return when its whole group is gone.

    ``env`` defaults to :func:`scrubbed_env` with ``HOME`` = ``cwd``. Starting it can
    raise ``OSError`` (missing program, no permission), as ``subprocess`` does.
    """
    cwd = Path(cwd)
    cpu_s = max(1, math.ceil(timeout_s) + 1)
    env = dict(env) if env is not None else scrubbed_env(cwd)
    token = env[TOKEN_VAR] = secrets.token_hex(8)
    command, preexec = _launch(argv, shell, cwd, env, memory_mb, cpu_s)
    proc = subprocess.Popen(
        command, shell=shell and preexec is not None, cwd=cwd, env=env,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
        start_new_session=True, preexec_fn=preexec, close_fds=True)
    deadline = time.monotonic() + timeout_s
    # every descendant starts at or after the command itself (same clock, same ticks), so
    # the sweep reads the environment of those processes only
    since = _started(proc.pid)
    try:
        out, err, timed_out = _pump(proc, input, deadline)
        if proc.poll() is None and not timed_out:  # it closed its output but still runs
            try:
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                timed_out = True
    finally:
        kill_group(proc.pid)  # also on an exception here (KeyboardInterrupt included)
        proc.wait()
        sweep(token, proc.pid, since)  # what left the group (setsid) is not left running
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None and not stream.closed:
                stream.close()
    return Finished(proc.returncode, out, err, timed_out)


def _pump(proc: subprocess.Popen, data: bytes, deadline: float) -> tuple[bytes, bytes, bool]:
    """Feed stdin and read stdout/stderr until the pipes close, killing the group when the
    leader ends or the deadline passes."""
    selector = selectors.DefaultSelector()
    buffers: dict[int, bytearray] = {}
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            os.set_blocking(stream.fileno(), False)
            buffers[stream.fileno()] = bytearray()
            selector.register(stream.fileno(), selectors.EVENT_READ)
    pending = memoryview(data)
    stdin = proc.stdin.fileno()
    if pending:
        os.set_blocking(stdin, False)
        selector.register(stdin, selectors.EVENT_WRITE)
    else:
        proc.stdin.close()
    timed_out, killed_at = False, None
    try:
        while selector.get_map():
            now = time.monotonic()
            if killed_at is None and (proc.poll() is not None or now >= deadline):
                timed_out = proc.poll() is None  # the leader still ran at the deadline
                kill_group(proc.pid)  # the leader ended: so does what it left behind
                killed_at = now
            if killed_at is not None and now - killed_at > GRACE_S:
                break
            for key, _ in selector.select(_POLL_S):
                fd = key.fd
                if fd == stdin:
                    try:
                        written = os.write(fd, pending[:65536])
                        pending = pending[written:]
                    except BlockingIOError:
                        continue
                    except OSError:  # the command stopped reading: the rest is not wanted
                        pending = pending[:0]
                    if not pending:
                        selector.unregister(fd)
                        proc.stdin.close()
                    continue
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    selector.unregister(fd)
                    continue
                room = OUTPUT_CAP_BYTES - len(buffers[fd])
                if room > 0:
                    buffers[fd] += chunk[:room]
    finally:
        selector.close()
    out = bytes(buffers.get(proc.stdout.fileno(), b"")) if proc.stdout else b""
    err = bytes(buffers.get(proc.stderr.fileno(), b"")) if proc.stderr else b""
    return out, err, timed_out
