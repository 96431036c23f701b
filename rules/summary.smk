# Merge every benchmark's score tables into results/<benchmark>/summary.csv, then all
# enabled benchmarks into results/summary.csv (kept in results/history/ as well) and its
# headline view results/leaderboard.md.


rule summarize_benchmark:
    input:
        get_score_tables,
    output:
        "results/{benchmark}/summary.csv",
    log:
        "logs/summarize_benchmark/{benchmark}.log",
    wildcard_constraints:
        benchmark="|".join(SCORE_TABLES),
    localrule: True
    conda:
        "../envs/scievals.yaml"
    script:
        "../scripts/summarize.py"


rule summarize_all:
    input:
        expand("results/{benchmark}/summary.csv", benchmark=BENCHMARKS),
    output:
        "results/summary.csv",
        leaderboard="results/leaderboard.md",  # = python -m scievals show
    log:
        "logs/summarize_all.log",
    localrule: True
    conda:
        "../envs/scievals.yaml"
    params:
        history_dir="results/history",
    script:
        "../scripts/summarize.py"


# One target rule per benchmark: `snakemake --cores 8 abdev`.
for _benchmark in SCORE_TABLES:

    rule:
        name:
            _benchmark
        input:
            f"results/{_benchmark}/summary.csv",
        localrule: True
