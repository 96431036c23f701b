# scievals: download -> curate/extract -> predict -> score -> tables, for every benchmark.
# `snakemake --cores 8 results/summary.csv` runs all benchmarks in config["benchmarks"];
# `snakemake --cores 8 <benchmark>` (or results/<benchmark>/summary.csv) runs one.
from snakemake.utils import min_version

min_version("9.19")


configfile: "config/config.yaml"


report: "report/workflow.rst"


# Adding a benchmark: include its rules file below (it registers SCORE_TABLES[<name>]),
# add <name> to the `benchmarks` enum in config/schema.yaml and to config.yaml's list,
# and give it config/schemas/<name>.schema.yaml.
include: "rules/common.smk"
include: "rules/abdev.smk"
include: "rules/gating.smk"
include: "rules/summary.smk"
include: "rules/report.smk"  # after every benchmark's rules file


rule all:
    default_target: True
    input:
        "results/summary.csv",
        REPORT_FIGURES,
    localrule: True
