# Merge every benchmark's score tables into results/<benchmark>/summary.csv, then all
# enabled benchmarks into results/summary.csv (kept in results/history/ as well) and its
# headline view results/leaderboard.md (ranks with ties from each benchmark's
# comparisons.csv, rules/comparisons.smk).


rule summarize_benchmark:
    input:
        lambda wildcards: score_tables(wildcards.benchmark),
    output:
        "results/{benchmark}/summary.csv",
    log:
        "logs/summarize_benchmark/{benchmark}.log",
    wildcard_constraints:
        benchmark=model_regex(BENCHMARKS),
    localrule: True
    conda:
        "../envs/core.yaml"
    script:
        "../scripts/summarize.py"


rule summarize_all:
    input:
        tables=expand("results/{benchmark}/summary.csv", benchmark=BENCHMARKS),
        comparisons=[b.comparisons_table for b in ENABLED],
    output:
        "results/summary.csv",
        leaderboard="results/leaderboard.md",  # = python -m scievals show
    log:
        "logs/summarize_all.log",
    localrule: True
    conda:
        "../envs/core.yaml"
    params:
        history_dir="results/history",
    script:
        "../scripts/summarize.py"


# One target rule per benchmark: `snakemake --cores 8 <benchmark>`.
for _benchmark in BENCHMARKS:

    rule:
        name:
            _benchmark
        input:
            f"results/{_benchmark}/summary.csv",
            f"results/{_benchmark}/comparisons.csv",
        localrule: True
