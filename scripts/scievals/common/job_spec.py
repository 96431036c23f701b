"""A workflow job's facts as JSON, so a job starts without importing Snakemake.

Snakemake's ``script:`` directive hands a job its facts as a pickled object, and unpickling
it imports Snakemake in the job's process: 65 ms of CPU, about 30 ms of it beyond the
standard modules our jobs load anyway, so 0.6-0.9 CPU-s over the default run's 32 jobs
(README "Measured figures", side by side with the script directive). So the rules run
``scripts/job.py`` from a ``shell:`` command instead (:func:`job_command`), and pass what
an entry script reads as one JSON param (:func:`job_param`: rule, input, output, params,
wildcards; threads and log come on the command line, since the threads a job gets depend on
``--cores`` and must not change its params). :func:`decode` rebuilds an object with the
attributes of Snakemake's (``input``, ``output``, ``params``, ``wildcards``, ``log``,
``threads``, ``rule``, ``scriptdir``), so the entry scripts read it as they read Snakemake's.

A job whose facts outgrow a command line (a summary of 10,000 own files names 10,000 tables)
gets them in a file instead: :func:`job_param` writes the JSON once to
``.snakemake/scievals-jobs/<sha256>.json`` and the param is ``@`` and that path. The file
name is a digest of the facts, so the param still changes exactly when they do (Snakemake
re-runs a job whose params changed), and the number of files or models is bounded by disk,
not by the 128 KiB Linux allows one argument.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

# The param every rule carries for scripts/job.py (left out of the params the job sees).
JOB_PARAM = "job"
# Where the shell command finds the interpreter and scripts/job.py.
PYTHON_ENV = "SCIEVALS_JOB_PYTHON"
RUNNER_ENV = "SCIEVALS_JOB_RUNNER"
# The arguments a Snakemake params function may ask for, by name (what this module passes on).
_FUNCTION_ARGS = ("wildcards", "input", "output")
# The job param travels in the shell command, one string that Linux caps at 128 KiB
# (MAX_ARG_STRLEN); the default run's largest is about 3 KB. Above this size the facts go in
# a file (SPEC_DIR) and the command carries its path (a job log stays readable, too).
MAX_INLINE_BYTES = 16_000
# Where those files go, relative to the run's working directory (the one every job of the
# run, local or on a cluster node, starts in); one per distinct spec, written at most once.
SPEC_DIR = os.path.join(".snakemake", "scievals-jobs")
# The first character of a param that names a spec file (JSON text starts with "{").
FILE_MARK = "@"


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
        values = {name: _evaluated(value, given) for name, value in params.items()}
        try:
            text = json.dumps({"rule": rule, "script": script,
                               "input": _files(input), "output": _files(output),
                               "params": values, "wildcards": dict(wildcards.items())})
        except (TypeError, ValueError) as exc:
            raise ValueError(f"rule {rule}: a param is not plain data ({exc}); config values "
                             "must be strings, numbers, booleans, lists or mappings") from None
        data = text.encode()
        if len(data) <= MAX_INLINE_BYTES:
            return text
        return FILE_MARK + spec_file(rule, data)

    return spec


def spec_file(rule: str, data: bytes) -> str:
    """The path of the file holding ``data`` (a job spec) under :data:`SPEC_DIR`, named by
    its SHA-256; written atomically the first time (a renamed temporary file, so a job
    never reads half of one, and a parallel writer of the same spec writes the same bytes)."""
    path = os.path.join(SPEC_DIR, hashlib.sha256(data).hexdigest() + ".json")
    if os.path.exists(path):
        return path
    try:
        os.makedirs(SPEC_DIR, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=SPEC_DIR, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError as exc:
        raise ValueError(f"rule {rule}: its job facts ({len(data) // 1024} KB, too long for a "
                         f"command line) could not be written to {path}: {exc.strerror or exc}; "
                         f"make {SPEC_DIR} in the run's working directory writable") from None
    return path


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


def decode(spec: str, threads: int, log: list[str], scriptdir: str) -> tuple[str, Job]:
    """(entry script, job) of :func:`job_param`'s param ``spec``: JSON text, or
    :data:`FILE_MARK` and the path of a file holding it."""
    if spec.startswith(FILE_MARK):
        path = spec[len(FILE_MARK):]
        try:
            with open(path, encoding="utf-8") as handle:
                spec = handle.read()
        except OSError as exc:
            raise SystemExit(f"error: {path}: this job's facts are gone "
                             f"({exc.strerror or exc}); the workflow writes them when it builds "
                             "its jobs: run the same snakemake command again") from None
    data = json.loads(spec)
    params = data["params"]
    return data["script"], Job(rule=data["rule"],
               input=Named(data["input"]["all"], data["input"]["named"]),
               output=Named(data["output"]["all"], data["output"]["named"]),
               params=Named(params.values(), params),
               wildcards=Named(data["wildcards"].values(), data["wildcards"]),
               log=Named(log), threads=threads, scriptdir=scriptdir)
