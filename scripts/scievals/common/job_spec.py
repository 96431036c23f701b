"""A workflow job's facts as JSON, so a job starts without importing Snakemake.

Snakemake's ``script:`` directive hands a job its facts as a pickled object, and unpickling
it imports Snakemake in the job's process: 65 ms of CPU, about 30 ms of it beyond the
standard modules our jobs load anyway, so 0.6-0.9 CPU-s over the default run's 32 jobs
(docs/performance.md; CHANGELOG for the side-by-side with the script directive). So the rules run
``scripts/job.py`` from a ``shell:`` command instead (:func:`job_command`), and pass what
an entry script reads as one JSON file, whose path is the job's param (:func:`job_param`:
rule, input, output, params, wildcards; threads and log come on the command line, since the threads a job gets depend on
``--cores`` and must not change its params). :func:`decode` rebuilds an object with the
attributes of Snakemake's (``input``, ``output``, ``params``, ``wildcards``, ``log``,
``threads``, ``rule``, ``scriptdir``), so the entry scripts read it as they read Snakemake's.

A job's facts have no size limit but the disk's: a summary of 10,000 own files names 10,000
tables (350 KB), which no command line could carry (Linux caps one argument at 128 KiB).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import inspect
import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scievals.common.redaction import redact_data

# The param every rule carries for scripts/job.py (left out of the params the job sees).
JOB_PARAM = "job"
# Where the shell command finds the interpreter and scripts/job.py.
PYTHON_ENV = "SCIEVALS_JOB_PYTHON"
RUNNER_ENV = "SCIEVALS_JOB_RUNNER"
# The arguments a Snakemake params function may ask for, by name (what this module passes on).
_FUNCTION_ARGS = ("wildcards", "input", "output")
# Where the job files live (:func:`spec_file`): Snakemake's own folder of the working directory.
SPEC_DIR = Path(".snakemake") / "scievals" / "jobs"


def job_command() -> str:
    """The ``shell:`` command of every rule: the runner with the threads, the job param and
    the log files. The interpreter and scripts/job.py come from the environment
    (:data:`PYTHON_ENV`, :data:`RUNNER_ENV`, set by :func:`set_runner` when the Snakefile is
    parsed, in the run's process and in each cluster job's own Snakemake).

    The same text for every rule and every checkout: Snakemake re-runs a job whose command
    text changed, so a path written into it would re-run everything after the checkout
    moved; and it evaluates a ``shell:`` expression again when the job runs, when a loop
    that defined the rules has moved on. What differs between rules is in the job param
    (evaluated per job by its own closure)."""
    return f'"${PYTHON_ENV}" "${RUNNER_ENV}" {{threads}} {{params.{JOB_PARAM}:q}} {{log:q}}'


def set_runner(python: str, runner: str) -> None:
    """The interpreter and the runner script :func:`job_command` starts."""
    os.environ[PYTHON_ENV] = python
    os.environ[RUNNER_ENV] = runner


def job_param(rule: str, script: str, params: Mapping[str, Any]) -> Callable[..., str]:
    """The ``job`` param of ``rule``, whose entry script is scripts/``script``: a params
    function of the job's wildcards, input and output that returns the JSON :func:`decode`
    reads. ``params`` are the rule's other params; a function among them is called as
    Snakemake calls it (with the arguments its signature names)."""

    def spec(wildcards, input, output) -> str:  # Snakemake's argument names
        given = {"wildcards": wildcards, "input": input, "output": output}
        # credentials in a URL never travel in params (a job restores them from the
        # environment: scievals.common.redaction)
        values = redact_data({name: _evaluated(value, given) for name, value in params.items()})
        try:
            text = json.dumps({"rule": rule, "script": script,
                               "input": _files(input), "output": _files(output),
                               "params": values, "wildcards": dict(wildcards.items())})
        except (TypeError, ValueError) as exc:
            raise ValueError(f"rule {rule}: a param is not plain data ({exc}); config values "
                             "must be strings, numbers, booleans, lists or mappings") from None
        return spec_file(text)

    return spec


def spec_file(text: str, directory: str | os.PathLike = SPEC_DIR) -> str:
    """The path of a file holding the job's JSON ``text``, named by its sha256.

    The shell command carries this short path rather than the JSON itself: Snakemake prints
    a failed job's whole command, and a 1,300-character line of JSON buried the job's one-line
    error. The name is the content's hash, so the param still changes exactly when the job's
    facts change (Snakemake's params trigger), and the same in every checkout.

    A file of that name is used only if it holds exactly ``text``: one truncated by a crash
    or a full disk is written again here, every time the workflow builds its jobs, so no job
    ever reads it (a file compared byte for byte costs one read, under 1 ms at 350 KB). No
    fsync therefore: a write a crash loses is repaired by the next parse. A file that cannot
    be written stops the parse with one line naming it, the cause and the fix."""
    data = text.encode()
    path = Path(directory) / f"{hashlib.sha256(data).hexdigest()[:24]}.json"
    try:
        kept = path.read_bytes()
    except OSError:
        kept = None
    if kept == data:
        try:
            os.utime(path)  # in use: kept by scievals.common.housekeeping's pruning
        except OSError:
            pass
        return path.as_posix()
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        os.replace(tmp, path)  # atomic: a job never reads half a file
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise SystemExit(f"error: {unwritable(path, exc)}") from None
    return path.as_posix()


# Why a job file could not be written, and what to do about it (errno -> cause, fix).
_AGAIN = "then run the same snakemake command again"
_FULL = ("disk full",
         f"free space on that disk (or run in a working directory on another), {_AGAIN}")
_DENIED = ("permission denied", f"make that folder writable for you, {_AGAIN}")
_WRITE_FAILURES = {errno.ENOSPC: _FULL, errno.EDQUOT: ("disk quota full", _FULL[1]),
                   errno.EACCES: _DENIED, errno.EPERM: _DENIED,
                   errno.EROFS: ("read-only file system", "run in a working directory on a "
                             "writable disk (snakemake -d DIR)")}


def unwritable(path: str | os.PathLike, exc: OSError) -> str:
    """One line for a job file ``path`` that could not be written: the file, the cause (disk
    full, permission, read-only; the system's words in brackets) and the fix."""
    other = ("cannot be written", f"check that folder of the run's working directory, {_AGAIN}")
    cause, fix = _blocked_folder(Path(path)) or _WRITE_FAILURES.get(exc.errno, other)
    return f"{Path(path).as_posix()}: job file not written: {cause} ({exc.strerror or exc}); {fix}"


def _blocked_folder(path: Path) -> tuple[str, str] | None:
    """(cause, fix) when a folder on the way to ``path`` is a symbolic link to nothing or a
    file (mkdir then says only "File exists"), else None."""
    for folder in reversed(path.parents):
        if folder.is_symlink() and not folder.exists():
            return ((f"the folder {folder.as_posix()} is a symbolic link to "
                     f"{os.readlink(folder)}, which does not exist"),
                    f"create that folder or remove the link, {_AGAIN}")
        if folder.exists() and not folder.is_dir():
            return (f"{folder.as_posix()} is a file, not a folder",
                    f"move that file away, {_AGAIN}")
    return None


def redacted_param(value: Any) -> Any:
    """A rule param as Snakemake may store it (its metadata under ``.snakemake/`` keeps every
    param): ``value`` with URL credentials redacted, a function's result when it runs."""
    if not callable(value):
        return redact_data(value)

    # with the wrapped function's signature (functools.wraps: inspect.signature follows
    # __wrapped__): Snakemake passes what it names, and a function of the wildcards only
    # stays one (Snakemake compares its value between runs, not a function of input/output)
    @functools.wraps(value)
    def evaluated(*args, **kwargs):
        return redact_data(value(*args, **kwargs))

    return evaluated


def _evaluated(value: Any, given: Mapping[str, Any]) -> Any:
    if not callable(value):
        return value
    names = list(inspect.signature(value).parameters)
    unknown = [n for n in names if n not in _FUNCTION_ARGS]
    if unknown:
        raise ValueError(f"a params function may take {', '.join(_FUNCTION_ARGS)}, "
                         f"not {', '.join(unknown)}")
    return value(**{n: given[n] for n in names})


def _files(named: Any) -> dict:
    """Snakemake's input or output list: every path in order, and the named ones."""
    return {"all": [str(path) for path in named],
            "named": {name: str(value) if isinstance(value, str) else [str(v) for v in value]
                      for name, value in named.items()}}


class Named(list):
    """A list whose named entries are attributes too, like Snakemake's ``Namedlist``:
    ``files[0]``, ``files.predictions``, ``files.items()``, ``files.keys()``."""

    def __init__(self, values: Iterable[Any] = (), names: Mapping[str, Any] | None = None):
        super().__init__(values)
        self._names = dict(names or {})

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["_names"][name]
        except KeyError:
            raise AttributeError(name) from None

    def items(self):
        return self._names.items()

    def keys(self):
        return self._names.keys()


@dataclass(frozen=True)
class Job:
    """What an entry script reads of its job (the attributes of Snakemake's object)."""

    rule: str
    input: Named
    output: Named
    params: Named
    wildcards: Named
    log: Named
    threads: int
    scriptdir: str


def _read_spec(path: str) -> str:
    """The JSON of the job file ``path``, checked against its name (its content's hash): a
    file damaged after the parse wrote it (a crash, a full disk) is one line, not a JSON
    traceback naming no file. The next run's parse writes it again (:func:`spec_file`)."""
    again = "run the same snakemake command again (the workflow writes it when it builds its jobs)"
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise SystemExit(f"error: {path}: this job's facts are gone "
                         f"({exc.strerror or exc}); {again}") from None
    if hashlib.sha256(data).hexdigest()[:24] != Path(path).stem:
        raise SystemExit(f"error: {path}: this job file is damaged (its content does not match "
                         f"its name, a hash of what was written: {len(data)} bytes left); "
                         f"{again}")
    return data.decode("utf-8")


def decode(spec: str, threads: int, log: list[str], scriptdir: str) -> tuple[str, Job]:
    """(entry script, job) of :func:`job_param`'s ``spec``: the path of its JSON file (or the
    JSON itself)."""
    if not spec.lstrip().startswith("{"):
        spec = _read_spec(spec)
    data = json.loads(spec)
    params = data["params"]
    return data["script"], Job(rule=data["rule"],
               input=Named(data["input"]["all"], data["input"]["named"]),
               output=Named(data["output"]["all"], data["output"]["named"]),
               params=Named(params.values(), params),
               wildcards=Named(data["wildcards"].values(), data["wildcards"]),
               log=Named(log), threads=threads, scriptdir=scriptdir)
