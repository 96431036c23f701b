"""``python -m scievals run BENCHMARK``: the workflow for one benchmark, with a model and an
item limit from the command line.

It writes a config overlay (``.scievals/run/<benchmark>.yaml``, git-ignored) holding the
registry entry of each ``--model``, the benchmark's models (its configured baselines plus
those) and the limit, then runs the same Snakemake workflow for the benchmark's target:

    snakemake BENCHMARK [targets] --cores N [options] --configfile [yours...] OVERLAY

The targets come first and ``--configfile`` last: Snakemake reads targets only before its
first option, and ``--configfile`` or a ``--forcerun`` given after ``--`` takes every word
after it.

Nothing it writes holds a secret: a ``--base-url``'s credentials go to Snakemake in the
environment (``scievals.common.redaction``), and ``--api-key-env`` takes only a variable's
name. What would not run as asked (a model replacing a configured one, an LLM for a benchmark
that sends nothing to a model, a bad ``--limit``) is one line before Snakemake starts.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from scievals import registry
from scievals.common.errors import ScievalsError
from scievals.common.io import read_yaml, write_text
from scievals.common.notices import now_utc
from scievals.common.redaction import (
    CREDENTIALS_ENV,
    export_credentials,
    holds_credentials,
    redact_data,
)
from scievals.common.run_lock import run_lock
from scievals.llm.keys import KEY_ENV_NAME
from scievals.workflow_config import merged_config

WORKFLOW_DIR = Path(__file__).resolve().parents[2]
OVERLAY_DIR = Path(".scievals") / "run"
PROVIDERS = ("anthropic", "openai", "mock")
RESUME = "re-run the same command to resume (finished requests come from the cache)"


def model_name(model_id: str) -> str:
    """A registry name for a provider's model id (``llama3.1:8b`` -> ``llama3.1-8b``)."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", model_id).strip("-._")
    if not name:
        raise ScievalsError("--model", f"{model_id!r} gives no usable model name",
                            "use PROVIDER/MODEL, e.g. openai/gpt-4o-mini")
    return name


def _model(given: str, args: argparse.Namespace, entries: dict) -> tuple[str, dict | None]:
    """(registry name, the entry this run adds, or None for an entry of the config)."""
    provider, slash, model_id = given.partition("/")
    if not slash:
        if given in entries:  # a registry entry of the user's config
            return given, None
        raise ScievalsError("--model", f"{given!r} is neither PROVIDER/MODEL nor a model of "
                            "the config's registry",
                            f"use PROVIDER/MODEL or one of {sorted(entries)}")
    if provider not in PROVIDERS:
        raise ScievalsError("--model", f"unknown provider {provider!r}",
                            f"use one of {', '.join(PROVIDERS)} (PROVIDER/MODEL)")
    name = model_name(model_id)
    entry = {"provider": provider, "model": model_id}
    if args.base_url:
        entry["base_url"] = args.base_url
    if args.api_key_env:
        entry["api_key_env"] = args.api_key_env
    configured = entries.get(name)
    if configured is not None and any(
            redact_data((configured or {}).get(key)) != redact_data(value)
            for key, value in entry.items()):
        # the overlay would merge over that entry: another model under a configured name
        kind = (configured or {}).get("provider", "baseline")
        raise ScievalsError("--model", f"{given} would be named {name!r}, which would replace "
                            f"the configured {kind} model {name!r}",
                            f"run that one with --model {name}, or define yours under another "
                            "name in your config's models: and pass that name")
    return name, entry


def _limit(text: str) -> int:
    if not re.fullmatch(r"\+?[0-9]+", text.strip()) or int(text) < 1:
        raise ScievalsError("--limit", f"{text!r} is not a number of items",
                            "give a whole number of at least 1, e.g. --limit 2")
    return int(text)


def names(args: argparse.Namespace) -> list[str]:
    """The benchmarks of the command line (one or several), each once, in order."""
    given = [args.benchmark] if isinstance(args.benchmark, str) else args.benchmark
    return list(dict.fromkeys(given))


def _models(args: argparse.Namespace, config: dict, benchmark: str) -> dict[str, dict | None]:
    """Every ``--model`` in order: registry name -> the entry this run adds (None: the
    config's own). Refused in one line: two that would share a name, ``--base-url`` or
    ``--api-key-env`` that would apply to none, and an LLM for a benchmark that sends no
    item to a model (it would be configured and never run)."""
    bench = registry.get(benchmark)
    entries = config.get("models") or {}
    added: dict[str, dict | None] = {}
    given_as: dict[str, str] = {}
    for given in args.model:
        name, entry = _model(given, args, entries)
        if name in added and added[name] != entry:
            raise ScievalsError("--model", f"{given_as[name]} and {given} would both be named "
                                f"{name!r}", "give each model once")
        added[name], given_as[name] = entry, given
    if (args.base_url or args.api_key_env) and not any(added.values()):
        raise ScievalsError("--base-url/--api-key-env", "apply to PROVIDER/MODEL models only",
                            "set base_url/api_key_env in the config's entry instead")
    llms = [given_as[name] for name, entry in added.items()
            if (entry or entries.get(name) or {}).get("provider", "baseline") != "baseline"]
    if llms and not bench.runs_llms:
        own = (config.get(bench.name) or {}).get("predictions_dir") or f"predictions/{bench.name}"
        raise ScievalsError("--model", f"{bench.name} sends nothing to a model (it scores its "
                            f"baselines and your own prediction files), so {llms[0]} would not "
                            "run", f"drop --model, or put the model's predictions in {own}/ "
                            f"(docs/{bench.name}.md)")
    return added


def overlay(args: argparse.Namespace, config: dict) -> dict:
    """The config keys this run sets over the user's config, for each benchmark (with any URL
    credentials in clear: :func:`run` writes them redacted and passes them in the
    environment)."""
    if args.api_key_env is not None and not re.fullmatch(KEY_ENV_NAME, args.api_key_env):
        # never shown: it may be the key itself
        raise ScievalsError("--api-key-env", "takes the name of an environment variable "
                            "(upper-case letters, digits and _); the value given is not one, "
                            "and is not shown in case it is a key",
                            "export MY_API_KEY=<the key>, then pass --api-key-env MY_API_KEY")
    if not args.model and (args.base_url or args.api_key_env):
        raise ScievalsError("--base-url/--api-key-env", "given without --model",
                            "add --model PROVIDER/MODEL")
    if args.base_url is not None:
        from scievals.llm.registry import base_url_parts  # pydantic: only with --base-url

        base_url_parts("--base-url", args.base_url)  # before Snakemake sees it: one line
    out: dict = {}
    if getattr(args, "batch", False):  # every openai/anthropic model through its batch API
        out["llm"] = {"batch": {"every_model": True}}
    for name in names(args):
        section, added = _section(args, config, name)
        if any(added.values()):
            out.setdefault("models", {}).update({m: e for m, e in added.items() if e})
        if section:
            out[name] = section
    return out


def _section(args: argparse.Namespace, config: dict, name: str) -> tuple[dict, dict]:
    """One benchmark's keys of the overlay, and the models ``--model`` gives it (registry
    name -> the entry this run adds, None for the config's own)."""
    bench = registry.get(name)
    section: dict = {}
    added: dict[str, dict | None] = {}
    if args.model:
        added = _models(args, config, name)
        entries = config.get("models") or {}
        configured = (config.get(bench.name) or {}).get("models") or list(bench.baselines)
        baselines = [m for m in configured
                     if (entries.get(m) or {}).get("provider", "baseline") == "baseline"
                     and m not in added]
        section["models"] = [*baselines, *added]  # the free baselines to compare with
    if args.limit is not None:
        limit = _limit(str(args.limit))
        if "limit" not in (read_yaml(bench.schema) or {}).get("properties", {}):
            raise ScievalsError("--limit", f"{bench.name} has no item limit (it sends no item "
                                "to a model: every item is scored in a few seconds)",
                                "run it without --limit")
        section["limit"] = limit
    return section, added


def extra_targets(extra: list[str]) -> tuple[list[str], list[str]]:
    """(targets, options) of the words after ``--``: the words before the first option are
    more targets (``-- results/report/samples.html``); they go beside the benchmark, as
    Snakemake reads targets only before its first option."""
    first_option = next((i for i, word in enumerate(extra) if word.startswith("-")), len(extra))
    return extra[:first_option], extra[first_option:]


def snakemake_command(args: argparse.Namespace, overlay_file: Path | None) -> list[str]:
    configfiles = [*args.configfile, *([str(overlay_file)] if overlay_file else [])]
    targets, options = extra_targets(args.extra)
    command = [sys.executable, "-m", "snakemake", *names(args), *targets,
               "--snakefile", str(WORKFLOW_DIR / "Snakefile"), "--cores", str(args.cores),
               *options]
    if configfiles:
        command += ["--configfile", *configfiles]  # last: it takes every word after it
    return command


def run(args: argparse.Namespace) -> int:
    return execute(args)[0]


def execute(args: argparse.Namespace) -> tuple[int, dict]:
    """Run the workflow as ``args`` say: (exit code, the overlay's settings)."""
    args.extra = list(getattr(args, "passthrough", []))
    for path in args.configfile:
        if not Path(path).is_file():
            raise ScievalsError(path, "config file not found", "check the --configfile path")
    settings = overlay(args, merged_config(args.configfile))
    # A base URL's credentials go to Snakemake in the environment, as a config file's do
    # (scievals.common.redaction); the overlay, and all that copies it, has http://***@host.
    in_environment = holds_credentials(settings)
    export_credentials(settings.get("models") or {})
    if args.print_command:
        command = snakemake_command(args, _write_overlay(args, settings))
        print(" ".join(command))
        if in_environment:
            print(f"note: the --base-url credentials are not in the overlay; the command needs "
                  f"them in {CREDENTIALS_ENV} (or the full URL in your config file)",
                  file=sys.stderr)
        return 0, settings
    # the overlay is written and read under the folder's lock: another run's can not replace
    # it before this run's Snakemake has read it (scievals.common.run_lock)
    with run_lock(OVERLAY_DIR, _described(args)):
        started = now_utc()
        overlay_file = _write_overlay(args, settings)
        code = _snakemake(snakemake_command(args, overlay_file))
    if code == 130:
        return code, settings
    # a dry run made nothing; another working directory's summary is not ./results'
    if code == 0 and not (DRY_RUN | ELSEWHERE).intersection(args.extra):
        missing = models_missing(args, settings, started)
        if missing:
            raise ScievalsError(*missing)
        print_results(args, settings)
    elif code == 0 and DRY_RUN.intersection(args.extra):
        print_estimate(args, overlay_file)
    return code, settings


def _write_overlay(args: argparse.Namespace, settings: dict) -> Path | None:
    """Write the run's config overlay (credentials redacted); its path, None without one."""
    if not settings:
        return None
    import yaml  # only to write an overlay (the other commands start without it)

    overlay_file = OVERLAY_DIR / f"{'+'.join(names(args))}.yaml"
    write_text(overlay_file, "# written by `python -m scievals run`; rewritten each run\n"
               + yaml.safe_dump(redact_data(settings), sort_keys=False))
    return overlay_file


def _described(args: argparse.Namespace) -> str:
    """The run in a few words, for the refusal of a second run in the folder."""
    return " ".join(["run", *names(args), *(f"--model {m}" for m in args.model or [])])


def _snakemake(command: list[str]) -> int:
    """Snakemake's exit code (130 after a Ctrl-C, said in one line)."""
    process = subprocess.Popen(command)
    try:
        return process.wait()
    except KeyboardInterrupt:  # Snakemake got the Ctrl-C too; let it finish its clean-up
        try:
            process.wait(timeout=60)
        except (KeyboardInterrupt, subprocess.TimeoutExpired):
            process.kill()
        print(f"interrupted: {RESUME}", file=sys.stderr)
        return 130


def models_missing(args: argparse.Namespace, settings: dict, started: str,
                   record: str | Path | None = None,
                   summary: str | Path = "results/summary.csv") -> tuple[str, str, str] | None:
    """(where, problem, fix) when a model this run asked for is not in what the run did,
    else None: the run record's config (when this run wrote it) or, after a run that found
    everything up to date (it writes no record), the summary's rows. A run that exits 0
    without its model (another process changed its config) must not look successful."""
    asked = {name: (settings.get(name) or {}).get("models") or [] for name in names(args)}
    if not any(asked.values()):
        return None
    if record is None:
        from scievals.report.run_manifest import MANIFEST as record  # after the run only
    data = _read_record(record)
    if data is not None and str(data.get("started_utc", "")) >= started:
        config = data.get("config") or {}
        have = {name: set((config.get(name) or {}).get("models") or []) for name in asked}
        where, kind = record, "run record's config"
    else:
        from scievals.results.show import read_summary  # pandas: after the run only

        rows = read_summary(summary, list(asked)) if Path(summary).is_file() else None
        have = {name: set() if rows is None else set(
            rows.loc[rows["benchmark"] == name, "model"].astype(str)) for name in asked}
        where, kind = summary, "summary"
    for name, models in asked.items():
        lost = [m for m in models if m not in have[name]]
        if lost:
            return (str(where), (f"the {kind} has no {name} results of {', '.join(lost)}, "
                                 "which this run asked for (was the folder's config changed "
                                 "while it ran?)"),
                    "run the same command again, one run at a time in this folder")
    return None


def _read_record(path: str | Path) -> dict | None:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def print_estimate(args: argparse.Namespace, overlay_file: Path | None) -> None:
    """After a dry run: what the run would send to its LLMs and cost (nothing is sent;
    scievals.results.estimate), from the curated cases as they are now."""
    # after a dry run only: the estimate imports the benchmarks' prediction code
    from scievals.results.estimate import estimate_run, table
    from scievals.workflow_config import validated

    files = [*args.configfile, *([str(overlay_file)] if overlay_file else [])]
    batches, skipped = estimate_run(validated(merged_config(files)), names(args))
    if batches:
        print(f"\nscievals: LLM requests of this run, estimated (nothing sent):\n"
              f"{table(batches)}")
    for line in skipped:
        print(line)


DRY_RUN = {"-n", "--dry-run", "--dryrun"}
ELSEWHERE = {"-d", "--directory"}


def models_run(args: argparse.Namespace, settings: dict) -> list[str] | None:
    """The models this run ran (each benchmark's in the overlay), or None: every model of the
    benchmarks (the run set none)."""
    found = [m for name in names(args) for m in (settings.get(name) or {}).get("models", [])]
    return list(dict.fromkeys(found)) or None


def print_results(args: argparse.Namespace, settings: dict,
                  summary: str | Path = "results/summary.csv") -> None:
    """The last lines of a run: the rows of the models just run, one line per model and
    condition (the headline metric, its interval and n); the leaderboard has the rest."""
    if not Path(summary).is_file():
        return
    from scievals.results.show import read_summary, run_results  # pandas: after the run only

    table = run_results(read_summary(summary, names(args), models_run(args, settings)),
                        str(summary))
    if table:
        print(f"\nscievals: results of this run (headline metric [95 % CI], n; every metric: "
              f"python -m scievals show {' '.join(names(args))}):\n{table}")


def run_benchmark(*benchmark: str, model: str | Sequence[str] = (), limit: int | None = None,
                  base_url: str | None = None, api_key_env: str | None = None,
                  configfile: str | Sequence[str] = (), cores: int | None = None,
                  snakemake_args: Sequence[str] = (), batch: bool = False):
    """Run benchmarks as ``python -m scievals run`` does, from the current directory (the
    workflow's checkout), and return the result rows of the models run (a pandas DataFrame:
    :func:`scievals.results.show.read_summary`'s columns). Bad arguments and a failed run
    raise :class:`~scievals.common.errors.ScievalsError` (docs/running-from-python.md)."""
    unknown = [name for name in benchmark if name not in registry.NAMES]
    if not benchmark or unknown:
        raise ScievalsError("run_benchmark", f"no benchmark {', '.join(map(repr, unknown))}"
                            if unknown else "no benchmark given",
                            f"name one or more of {', '.join(registry.NAMES)}")
    args = argparse.Namespace(
        benchmark=list(benchmark), model=[model] if isinstance(model, str) else list(model),
        limit=limit, base_url=base_url, api_key_env=api_key_env,
        configfile=[configfile] if isinstance(configfile, str) else list(configfile),
        cores=str(cores or min(os.cpu_count() or 1, 8)), print_command=False, batch=batch,
        passthrough=list(snakemake_args))
    code, settings = execute(args)
    if code != 0:
        raise ScievalsError("run_benchmark", f"the workflow stopped with exit code {code}",
                            "the lines printed above (and the log they name) say why; run "
                            "again to resume")
    from scievals.results.show import read_summary  # pandas: after the run only

    return read_summary("results/summary.csv", names(args), models_run(args, settings))


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "run",
        help="run benchmarks' workflow, optionally with models and an item limit",
        description="Run the Snakemake workflow for one or several benchmarks and print the "
        "results of the models run. --model and --limit are written to a config overlay "
        "(.scievals/run/BENCHMARK[+...].yaml) merged over your config; arguments after -- go "
        "to snakemake.",
    )
    parser.add_argument("benchmark", nargs="+", choices=registry.NAMES,
                        help="the benchmark(s) to run, e.g. gating autogkb")
    parser.add_argument("--model", action="append", help="PROVIDER/MODEL (anthropic, openai, "
                        "mock), e.g. openai/gpt-4o-mini, or the name of a model in your config's "
                        "registry; it runs beside the benchmark's baselines (repeatable: every "
                        "model given runs)")
    parser.add_argument("--base-url", help="OpenAI-compatible server (vLLM, Ollama, llama.cpp), "
                        "e.g. http://localhost:11434/v1, for the PROVIDER/MODEL models; "
                        "credentials in it (http://user:pass@host) are passed in the "
                        "environment, never written")
    parser.add_argument("--api-key-env", metavar="VARIABLE", help="name of the environment "
                        "variable holding the API key, e.g. OPENAI_API_KEY (never the key "
                        "itself: a value that is not a variable name is refused)")
    parser.add_argument("--limit", metavar="N", help="smoke run: only the first N items "
                        "(the tables say 'limited to N items')")
    parser.add_argument("--batch", action="store_true",
                        help="send every openai/anthropic model's requests through the "
                        "provider's batch API (half price, answers within 24 h; a stopped run "
                        "resumes the same batches; docs/llm.md, Batch mode)")
    parser.add_argument("--configfile", action="append", default=[], metavar="FILE",
                        help="your config file, merged over config/config.yaml (repeatable)")
    parser.add_argument("--cores", default=str(min(os.cpu_count() or 1, 8)),
                        help="Snakemake --cores (default: the CPUs, at most 8)")
    parser.add_argument("--print-command", action="store_true",
                        help="print the snakemake command instead of running it")
    parser.epilog = ("Arguments after -- go to snakemake: more targets first, then options, "
                     "e.g. -- results/report/samples.html --dry-run")
    parser.set_defaults(func=run)
