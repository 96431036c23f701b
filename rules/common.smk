# Shared setup: config validation (first), the enabled benchmarks from the registry
# (scievals.registry) and the helpers every benchmark's rules file uses. The Snakefile has
# put this workflow's scripts/ first on sys.path.
import atexit
import os
import sys

from scievals import registry
from scievals.common import hints, notices
from scievals.common.code_digest import score_code_digest
from scievals.common.errors import ScievalsError
from scievals.common.housekeeping import prune_bookkeeping
from scievals.common.job_spec import job_command, job_param, set_runner
from scievals.common.provenance import config_hash
from scievals.common.redaction import export_credentials, redact_data
from scievals.common.run_terminal import quiet_job_detail
from scievals.common.targets import report_after_run
from scievals.common.workflow import benchmark_models, byo_batches, model_regex, retry_failed
from scievals.llm.registry import key_envs, preflight_config
from scievals.report import run_manifest
from scievals.workflow_config import validated

try:
    # validated and filled in place; repeated only when the config or its checks changed
    validated(config)
    # Registry entry of every enabled benchmark, in the config's order.
    ENABLED = registry.enabled(config)
    # benchmark name -> its models: baselines, llms, byo (own files), all.
    MODELS = {
        b.name: benchmark_models(config, b.name, b.byo_suffix) for b in ENABLED
    }
except ScievalsError as exc:
    sys.exit(f"error: {exc.one_line()}")

BENCHMARKS = [b.name for b in ENABLED]

# A run's terminal shows progress in a few lines, warnings, errors and the end-of-run notes;
# Snakemake's per-job detail stays in the complete log (.snakemake/log/), dry runs print it,
# and --verbose prints it all (scievals.common.run_terminal).
quiet_job_detail(workflow)
BOOTSTRAP = config["bootstrap"]

# Every job runs its entry script through scripts/job.py, from one `shell:` command
# (scievals.common.job_spec: a job then starts without importing Snakemake); with the
# interpreter running the workflow, or the conda env's own under --use-conda. The rule's job
# param (job_param(rule, entry script, params)) says what to run.
set_runner("python" if "CONDA" in {m.name for m in workflow.deployment_settings.deployment_method}
           else sys.executable, os.path.join(workflow.basedir, "scripts", "job.py"))
JOB_SHELL = job_command()


# API keys reach cluster jobs through envvars (never params, which Snakemake stores).
# Only keys that are set are declared: a missing one is reported by the preflight below.
# So do the credentials of a base_url (http://user:pass@host): the params carry the URL
# as http://***@host, the job restores it (scievals.common.redaction).
envvars:
    *[name for name in key_envs(config) if name in os.environ],
    *export_credentials(config.get("models") or {}),


# Before any job runs (not on dry runs): every LLM an enabled benchmark uses has its
# API key set and its server reachable, else one line and exit 1.
onstart:
    try:
        preflight_config(config)
    except ScievalsError as exc:
        sys.exit(f"error: {exc.one_line()}")


# The Snakefile's onsuccess/onerror call end_of_run: the run record, then every notice jobs
# recorded since (demo fallbacks, skipped sources or cases, failed requests) again,
# results/run_report.json and where to look next.
RUN_STARTED = notices.now_utc()


# The commands the last lines name, each runnable as printed from the workflow's directory
# (tests/workflow/test_printed_hints.py follows every one in a fresh copy), with this run's
# --configfile files, so that following one keeps the run's models (scievals.common.hints).
SAMPLES_PAGE = "results/report/samples.html"


def hint_command(*words):
    return hints.snakemake_command(*words, configfiles=workflow.config_settings.configfiles,
                                   snakefile=workflow.main_snakefile)


REPORT_COMMAND = hint_command("--report", "results/report.html", "--report-after-run")


def next_steps():
    """What to look at after the run (label -> path or command), for the last lines printed:
    a file that exists and is current, else the command that makes (or refreshes) it."""
    steps = {}
    if os.path.exists("results/leaderboard.md"):
        steps["leaderboard"] = "results/leaderboard.md  (python -m scievals show)"
    summary = "results/summary.csv"
    current = (os.path.exists(SAMPLES_PAGE) and os.path.exists(summary)
               and os.path.getmtime(SAMPLES_PAGE) >= os.path.getmtime(summary))
    # opened on the model this run singles out (run <benchmark> --model X: #<benchmark>/X)
    address = hints.viewer_address(SAMPLES_PAGE, workflow.dag_settings.targets,
                                   {b: MODELS[b].llms for b in BENCHMARKS})
    steps["sample viewer"] = (
        (f"{SAMPLES_PAGE}  (open {address or 'it'} in a browser)" if current
         else f"{hint_command(SAMPLES_PAGE)}  (then open {address or 'it'})"))
    # --report-after-run first makes the figures and pages the report bundles (the run's
    # target may not have), so the command works after any target; a run that writes the
    # report itself names the file it is writing.
    written = report_after_run(sys.argv[1:])
    steps["HTML report"] = (f"{written}  (written now; open in a browser)" if written
                            else REPORT_COMMAND)
    if os.path.exists(run_manifest.MANIFEST):
        steps["run record"] = str(run_manifest.MANIFEST)
    return steps


def run_outputs():
    """The output files of every job this run's targets need, run now or up to date (what
    the run's notices and run record are about), or None if Snakemake does not say."""
    try:
        return {str(path) for job in workflow.dag.jobs for path in job.output}
    except (AttributeError, TypeError):
        return None


def end_of_run(status):
    """Write the run record, then repeat the notices and say where the results are."""
    in_run = run_outputs()
    try:
        run_manifest.write_manifest(
            status, RUN_STARTED, sys.argv, workflow.dag_settings.targets, config, BENCHMARKS,
            in_run=in_run,
        )
    except (OSError, ValueError, ScievalsError) as exc:
        print(f"scievals: the run record {run_manifest.MANIFEST} was not written: {exc}",
              file=sys.stderr)
    links = next_steps()
    if status == "success":
        kept = keep_run_log(in_run)
        if kept:
            links["run log"] = f"{kept}  (python -m scievals logs)"
    notices.report(status, since=RUN_STARTED, benchmarks=BENCHMARKS, links=links,
                   in_run=in_run)
    if status == "success":
        prune_bookkeeping()  # job files and kept score tables no run used for 30 days


def keep_run_log(in_run):
    """Keep this run's records in results/runs/ (scievals.interop.runlogs); the folder, or
    None. A record, not a gate: a failure is one line, never a failed run."""
    from scievals.interop import runlogs  # imported here: only a finished run needs it

    try:
        return runlogs.keep_run("results", BENCHMARKS, in_run, config)
    except ScievalsError as exc:
        print(f"scievals: {exc.one_line()}", file=sys.stderr)
    except (OSError, ValueError, KeyError) as exc:
        print(f"scievals: this run's log was not kept in results/runs/: {exc}",
              file=sys.stderr)
    return None


def nothing_was_to_be_done():
    """True at the exit of a run that found every requested output up to date: Snakemake
    then says "Nothing to be done" and calls neither onsuccess nor onerror. Only in the main
    process of a real run (not a dry run, --report, --list or a cluster job's own Snakemake)
    and never after a run that scheduled jobs (onsuccess/onerror spoke then)."""
    try:
        return (workflow.is_main_process and not workflow.dryrun
                and not workflow.execution_settings.no_hooks
                and getattr(workflow, "scheduler", None) is not None
                and workflow.dag is not None and len(workflow.dag) == 0)
    except (AttributeError, TypeError):  # a mode that built no DAG or no scheduler
        return False


def say_where_results_are():
    """Where to look, after a run with nothing to do (the results of the last run stand;
    its run record and report are left as they are)."""
    if nothing_was_to_be_done():
        notices.print_links(next_steps(), heading="every result is up to date; where to look")


atexit.register(say_where_results_are)


wildcard_constraints:
    model=r"[A-Za-z0-9][A-Za-z0-9._-]*",


# Section keys that only say how jobs are laid out, never what a number is: left out of the
# config hash, so changing one changes no table's provenance.
LAYOUT_KEYS = {"byo_score_jobs"}


def section_hash(benchmark):
    """Config hash of one benchmark: its section, the bootstrap and its models' registry entries."""
    return config_hash(redact_data(
        {
            "section": {k: v for k, v in config[benchmark].items() if k not in LAYOUT_KEYS},
            "bootstrap": BOOTSTRAP,
            "models": {m: config["models"].get(m) for m in config[benchmark]["models"]},
            # a smoke run's top-level item limit (a section's own limit is in its section)
            **({"limit": config["limit"]} if config.get("limit") is not None else {}),
        }
    ))


def code_version(benchmark, role):
    """The version constant of a benchmark's predict or score code, as a param (so a change
    re-runs exactly the jobs that use that code). The score code's also names the digest of
    its source (scievals.common.code_digest): an edit re-scores without a version bump."""
    version = registry.get(benchmark).code_version(role)
    return f"{version}+{score_code_digest(benchmark)[:16]}" if role == "score" else version


def score_tables(benchmark):
    """Every model's long-format score table of one benchmark (what its summary merges)."""
    return expand(registry.get(benchmark).score_table, model=MODELS[benchmark].all)
