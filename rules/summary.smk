# Merge every benchmark's score tables into results/<benchmark>/summary.csv, then all
# enabled benchmarks into results/summary.csv (kept in results/history/ as well) and its
# headline view results/leaderboard.md (ranks with ties from each benchmark's
# comparisons.csv beside it, rules/comparisons.smk).
#
# A benchmark target (`snakemake --cores 8 <benchmark>`) refreshes results/summary.csv and
# results/leaderboard.md too, from each enabled benchmark's last results/<b>/summary.csv
# (the others' rows as their last run left them), so `python -m scievals show` is current
# after any target. Its own output is the benchmark's leaderboard.
#
# Their cost grows with the number of models (10,000 own files are 10,000 tables to merge), so
# they run through the executor; under --profile profiles/slurm the benchmarks' summaries are
# packed two to a SLURM job (`group: summary`, group-components in the profile: each is a
# component of its own, and a packed job asks one CPU per component), the merge of all of
# them and a benchmark target's refresh are a SLURM job each.
SUMMARY_RESOURCES = {"mem_mb": 2000, "runtime": 30}


SUMMARY = "results/summary.csv"
LEADERBOARD = "results/leaderboard.md"
HISTORY_DIR = "results/history"


rule summarize_benchmark:
    input:
        lambda wildcards: score_tables(wildcards.benchmark),
    output:
        "results/{benchmark}/summary.csv",
    log:
        "logs/summarize_benchmark/{benchmark}.log",
    wildcard_constraints:
        benchmark=model_regex(BENCHMARKS),
    group:
        "summary"
    resources:
        **SUMMARY_RESOURCES,
    conda:
        "../envs/core.yaml"
    params:
        job=job_param("summarize_benchmark", "summarize.py", {}),
    shell:
        JOB_SHELL


rule summarize_all:
    input:
        tables=expand("results/{benchmark}/summary.csv", benchmark=BENCHMARKS),
        # read by the leaderboard beside the summary (scievals.results.show)
        comparisons=[b.comparisons_table for b in ENABLED],
    output:
        SUMMARY,
        leaderboard=LEADERBOARD,  # = python -m scievals show
    log:
        "logs/summarize_all.log",
    resources:
        **SUMMARY_RESOURCES,
    conda:
        "../envs/core.yaml"
    params:
        history_dir=HISTORY_DIR,
        job=job_param("summarize_all", "merge_summary.py", {"history_dir": HISTORY_DIR}),
    shell:
        JOB_SHELL


_REFRESH = dict(
    # every enabled benchmark's summary: the ones not on disk yet are left out
    summaries=expand("results/{benchmark}/summary.csv", benchmark=BENCHMARKS),
    summary=SUMMARY,
    leaderboard=LEADERBOARD,
    history_dir=HISTORY_DIR,
)


rule refresh_summary:
    input:
        "results/{benchmark}/summary.csv",
        "results/{benchmark}/comparisons.csv",
    output:
        "results/{benchmark}/leaderboard.md",
    log:
        "logs/refresh_summary/{benchmark}.log",
    wildcard_constraints:
        benchmark=model_regex(BENCHMARKS),
    resources:
        **SUMMARY_RESOURCES,
    conda:
        "../envs/core.yaml"
    params:
        **_REFRESH,
        job=job_param("refresh_summary", "merge_summary.py", _REFRESH),
    shell:
        JOB_SHELL


# One target rule per benchmark: `snakemake --cores 8 <benchmark>`.
for _benchmark in BENCHMARKS:

    rule:
        name:
            _benchmark
        input:
            f"results/{_benchmark}/summary.csv",
            f"results/{_benchmark}/leaderboard.md",
        localrule: True
