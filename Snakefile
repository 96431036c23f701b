# scievals: download -> curate/extract -> predict -> score -> tables, for every benchmark.
# `snakemake --cores 8 results/summary.csv` runs all benchmarks in config["benchmarks"];
# `snakemake --cores 8 <benchmark>` (or results/<benchmark>/summary.csv) runs one.
# The benchmarks come from the registry (scripts/scievals/benchmarks.py); a benchmark that
# is not in config["benchmarks"] gets none of its rules. How to add one:
# docs/adding-a-benchmark.md.
import sys
from pathlib import Path

from snakemake.utils import min_version

min_version("9.19")

sys.path.insert(0, str(Path(workflow.basedir) / "scripts"))
from scievals.common.errors import ScievalsError
from scievals.workflow_config import read_config_file
from scievals.common.targets import check_targets, report_is_missing_inputs

# The workflow's own config, wherever the run's working directory is (`snakemake -d OTHER`
# writes data/, results/ and logs/ under OTHER, but reads this file).
CONFIG_FILE = Path(workflow.basedir) / "config" / "config.yaml"
if CONFIG_FILE.is_relative_to(Path.cwd()):
    CONFIG_FILE = CONFIG_FILE.relative_to(Path.cwd())  # errors name it as the user knows it
CONFIG_FILE = str(CONFIG_FILE)
# Read once before Snakemake does, so that a YAML syntax error names the file and line; and
# every --configfile, which Snakemake has loaded (with its own YAML reader, when it read the
# command line) but nothing has hashed or expanded yet: an alias bomb, a key written twice,
# a number as a key are one line here (scievals.workflow_config.read_config_file).
try:
    for _path in [CONFIG_FILE, *workflow.config_settings.configfiles]:
        _path = Path(_path)
        read_config_file(_path.relative_to(Path.cwd()) if _path.is_relative_to(Path.cwd())
                         else _path)
except ScievalsError as exc:
    sys.exit(f"error: {exc.one_line()}")


configfile: CONFIG_FILE


report: "report/workflow.rst"


include: "rules/common.smk"
# The rules every benchmark shares, generated from the registry for the enabled ones ...
include: "rules/stages.smk"


# ... and what is specific to one benchmark, where it has anything (rules/<benchmark>.smk).
for _benchmark in ENABLED:
    if _benchmark.rules.is_file():

        include: f"rules/{_benchmark.name}.smk"


include: "rules/comparisons.smk"
include: "rules/summary.smk"
include: "rules/report.smk"


# The end of every run (not of dry runs) writes the run record results/run_manifest.json
# (scievals.report.run_manifest), repeats each notice jobs recorded - demo fallbacks,
# skipped sources or cases, failed requests - writes results/run_report.json
# (scievals.common.notices) and says where the leaderboard and report are (end_of_run in
# rules/common.smk).
onsuccess:
    end_of_run("success")


onerror:
    end_of_run("error")


rule all:
    default_target: True
    input:
        "results/summary.csv",
        REPORT_FIGURES,
    localrule: True


# Every rule is defined now: a target no rule makes gets the valid ones in one line instead of
# Snakemake's MissingRuleException (scievals.common.targets).
try:
    check_targets(
        sys.argv[1:],
        workflow.rules,
        valid=[
            *BENCHMARKS,
            "all",
            "results/summary.csv",
            *[f"results/{b}/summary.csv" for b in BENCHMARKS],
            "results/leaderboard.md",
            "results/report/samples.html",
            "report_figures",
        ],
    )
except ScievalsError as exc:
    sys.exit(f"error: {exc.one_line()}")
# `--report` alone bundles what earlier runs made; after a target that made no figures (the
# quick start's results/summary.csv) one line names the command that makes them first,
# instead of Snakemake's "marked for report but does not exist" or a docutils traceback.
if report_is_missing_inputs(sys.argv[1:], [*REPORT_FIGURES, LEADERBOARD_FRAGMENT]):
    sys.exit(f"error: the HTML report needs its figures and pages first; run: {REPORT_COMMAND}")


# Everything the parse made (Snakemake's and the package's modules, the registry, the rules)
# lives until the run ends; freezing it keeps the garbage collector from walking it again at
# every collection while Snakemake schedules jobs and checks files: about 0.25 of a no-op
# re-run's 1.3 CPU-s (benchmarks/workflow_startup.py). Collection itself stays on.
import gc

gc.freeze()
