"""End-of-run notices: what a user must hear again after the log has scrolled away.

A job calls :func:`record` for anything that makes its output less than what the user
asked for: a demo fallback, a skipped source, a skipped case, a failed request. The
workflow's ``onsuccess``/``onerror`` handlers call :func:`report`, which prints every
notice once more and writes ``results/run_report.json``.

Notices belong to the job that recorded them. :func:`start_job` (called by
``scievals.common.entry.run`` before every entry script) clears the job's earlier
notices, so a job that re-runs without a problem withdraws them, while a job that is up
to date keeps them: a demo fallback from an earlier run is still said at the end of a
run that reused its output. Notices of a job whose outputs are gone are dropped.

A job that left failed requests behind must run again: :func:`retry_token` is the value of
its ``retry_failed`` param (``scievals.common.workflow.retry_failed``), which changes exactly
when the job's last run recorded a ``failed_request`` notice with ``details["retry"]`` true
(the LLM runner's: a request that may well succeed next time), so Snakemake's params trigger
re-runs it, and only it, on the next plain run (its answered requests come from the cache).

Outside a workflow job (the CLI, tests) :func:`record` only logs.

    from scievals.common import notices
    notices.record("fallback", "abdev", "GDPa1 download failed; scored on the demo",
                   details={"reason": str(exc)})
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from scievals.common.io import write_json, write_text
from scievals.common.output import wrap_width, wrapped

log = logging.getLogger(__name__)

NOTICES_DIR = Path("logs/notices")
RUN_REPORT = Path("results/run_report.json")
# What went less than asked (free text is allowed, these are the ones the report groups).
KINDS = ("fallback", "skipped_source", "skipped_case", "failed_request", "quality", "other")
# The "benchmark" of a notice about the workflow as a whole (the history): always reported.
WORKFLOW = "workflow"
# The kind of a failed job's one-line error: said last, at the end of the run it failed.
ERROR = "error"
INTERRUPTED = "interrupted"
RESUME = "fix it, then re-run the same command (finished jobs are kept)"
RESUME_INTERRUPTED = ("interrupted: re-run the same command to resume (finished jobs and "
                      "answered LLM requests are kept)")


@dataclass
class Notice:
    kind: str
    benchmark: str
    message: str
    job: str = ""
    details: dict = field(default_factory=dict)
    outputs: list[str] = field(default_factory=list)
    recorded_utc: str = ""
    # said only at the end of the run that recorded it (news about that run, such as the
    # models its summary lost), not again by a later run that reuses the job's output
    once: bool = False

    def line(self) -> str:
        return f"[{self.benchmark}] {self.kind}: {self.message}" + (
            f" (job {self.job})" if self.job else "")


@dataclass
class _Job:
    name: str
    outputs: list[str]
    path: Path


_current: _Job | None = None
_lock = threading.Lock()  # LLM jobs record from worker threads


def _job_file(directory: Path, rule: str, wildcards: dict) -> Path:
    tag = ",".join(f"{k}={v}" for k, v in sorted(wildcards.items()))
    stem = f"{rule}.{tag}" if tag else rule
    return directory / f"{stem.replace(os.sep, '_')}.jsonl"


def start_job(rule: str, wildcards: dict, outputs: list[str],
              directory: str | os.PathLike = NOTICES_DIR, retry: str | None = None) -> None:
    """Make later :func:`record` calls belong to this job; withdraw its earlier notices.

    ``retry`` is the job's ``retry_failed`` param, kept so that :func:`retry_token` gives the
    same value again (no re-run) until the job records a failed request."""
    global _current
    path = _job_file(Path(directory), rule, dict(wildcards))
    name = rule + "".join(f"[{k}={v}]" for k, v in sorted(dict(wildcards).items()))
    _current = _Job(name, [str(o) for o in outputs], path)
    path.unlink(missing_ok=True)
    if retry is not None:
        write_text(path.with_suffix(".retry"), retry)


def retry_token(rule: str, wildcards: dict, directory: str | os.PathLike = NOTICES_DIR) -> str:
    """The job's ``retry_failed`` param: new when its last run recorded failed requests,
    else the value that run had (so a clean or up-to-date job is not re-run)."""
    path = _job_file(Path(directory), rule, dict(wildcards))
    failed = [n for n in _read(path) if n.kind == "failed_request" and n.details.get("retry")]
    if failed:
        return "failed requests recorded " + failed[-1].recorded_utc
    token = path.with_suffix(".retry")
    return token.read_text(encoding="utf-8") if token.is_file() else ""


def end_job() -> None:
    global _current
    _current = None


def record(kind: str, benchmark: str, message: str, *, details: dict | None = None,
           once: bool = False) -> Notice:
    """Record one notice for the end of the run (and log it as a warning now); ``once``:
    for this run's end only."""
    notice = Notice(kind=kind, benchmark=benchmark, message=" ".join(message.split()),
                    details=details or {},
                    recorded_utc=now_utc(), once=once)
    log.warning("%s", notice.line())
    _store(notice)
    return notice


def record_error(message: str, kind: str = "error") -> Notice:
    """Keep a failed job's one-line error (already logged) for the last lines of this run
    (``kind``: :data:`ERROR`, or :data:`INTERRUPTED` for Ctrl-C)."""
    notice = Notice(kind=kind, benchmark=WORKFLOW, message=" ".join(message.split()),
                    recorded_utc=now_utc(), once=True)
    _store(notice)
    return notice


def _store(notice: Notice) -> None:
    job = _current
    if job is not None:
        notice.job, notice.outputs = job.name, job.outputs
        with _lock:
            existing = job.path.read_text(encoding="utf-8") if job.path.exists() else ""
            write_text(job.path, existing + json.dumps(asdict(notice), sort_keys=True) + "\n")


def now_utc() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def collect(directory: str | os.PathLike = NOTICES_DIR, since: str = "",
            in_run: set[str] | None = None) -> list[Notice]:
    """Every notice recorded at or after ``since`` (a failed job of this run has lost its
    outputs), and every notice of an earlier run's job whose outputs still exist and, given
    ``in_run`` (the output files of every job this run's targets need, run now or up to
    date), are among them: a gating-only run does not repeat an abdev job's fallback.
    Oldest first."""
    found = []
    for path in sorted(Path(directory).glob("*.jsonl")):
        for notice in _read(path):
            this_run = bool(since) and notice.recorded_utc >= since
            standing = (not notice.once and all(Path(o).exists() for o in notice.outputs)
                        and (in_run is None or any(o in in_run for o in notice.outputs)))
            if this_run or standing:
                found.append(notice)
    return sorted(found, key=lambda n: (n.recorded_utc, n.benchmark, n.job))


def _read(path: Path) -> list[Notice]:
    """The notices of one job file; a damaged line must not cost the end-of-run report."""
    if not path.is_file():
        return []
    found = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            found.append(Notice(**json.loads(line)))
        except (ValueError, TypeError):
            continue
    return found


def print_links(links: dict[str, str], heading: str = "where to look next",
                stream=None) -> None:
    """``links`` (label -> path or command) under ``scievals: <heading>:``, aligned."""
    if not links:
        return
    stream = stream or sys.stderr
    print(f"\nscievals: {heading}:", file=stream)
    width = max(len(label) for label in links)
    for label, where in links.items():
        print(f"  {label:<{width}}  {where}", file=stream)


SHOWN_JOBS = 3  # a notice every own file's job records names three and counts the rest


def said_lines(notices: list[Notice]) -> list[str]:
    """One line per distinct notice: the same message from several jobs (a limit said by each
    model's score job) is said once, naming the jobs."""
    jobs: dict[tuple[str, str, str], list[str]] = {}
    for notice in notices:
        jobs.setdefault((notice.benchmark, notice.kind, notice.message), [])
        if notice.job:
            jobs[(notice.benchmark, notice.kind, notice.message)].append(notice.job)
    out = []
    for (benchmark, kind, message), names in jobs.items():
        names = list(dict.fromkeys(names))
        shown = ", ".join(names[:SHOWN_JOBS]) + (
            f" and {len(names) - SHOWN_JOBS} more" if len(names) > SHOWN_JOBS else "")
        label = "" if not names else f" (job {shown})" if len(names) == 1 else \
            f" (jobs {shown})"
        out.append(f"[{benchmark}] {kind}: {message}{label}")
    return out


def report(status: str, since: str = "", benchmarks: list[str] | None = None,
           directory: str | os.PathLike = NOTICES_DIR, out_json: str | os.PathLike = RUN_REPORT,
           stream=None, links: dict[str, str] | None = None,
           in_run: set[str] | None = None) -> list[Notice]:
    """Print every notice again and write the run report (the workflow's last words).

    ``status`` is ``success`` or ``error``; ``since`` the run's start (:func:`now_utc`);
    ``benchmarks`` the enabled ones (notices of others are left out; :data:`WORKFLOW`
    notices are always in); ``links`` what to look at next (label -> path or command),
    printed last and kept in the report; ``in_run`` the outputs of this run's jobs
    (:func:`collect`)."""
    stream = stream or sys.stderr
    notices = [n for n in collect(directory, since, in_run)
               if benchmarks is None or n.benchmark in (*benchmarks, WORKFLOW)]
    errors = list(dict.fromkeys(n.message for n in notices if n.kind == ERROR))
    interrupted = any(n.kind == INTERRUPTED for n in notices)
    said = [n for n in notices if n.kind not in (ERROR, INTERRUPTED)]
    if said:
        lines = said_lines(said)
        print(f"\nscievals: {len(lines)} notice(s) about this run "
              f"(also in {out_json}):", file=stream)
        # wrapped on a terminal (at most 100 columns); a log file or pipe keeps one line per
        # notice (grep)
        width = wrap_width(stream)
        for line in lines:
            print(wrapped(line, width, "  - ", "    "), file=stream)
    if status == "error" and interrupted and not errors:
        print(f"\nscievals: {RESUME_INTERRUPTED}", file=stream)
    elif status == "error":  # the last lines: what failed, not where the (stale) results are
        print("\nscievals: the run failed:", file=stream)
        unexplained = "a job failed without a scievals error line: its log is named above"
        for message in errors or [unexplained]:
            print(f"  {message}", file=stream)
        print(f"  {RESUME}", file=stream)
    else:
        print_links(links or {}, stream=stream)
    try:
        write_json(out_json, {
            "status": status,
            "started_utc": since,
            "finished_utc": now_utc(),
            "notices": [asdict(n) for n in notices],
            "links": dict(links or {}),
        })
    except OSError as exc:  # a full disk at the very end: said in one line, the run's exit stands
        print(f"scievals: {out_json} not written ({exc.strerror or exc}); the notices are "
              "above", file=stream)
    return notices
