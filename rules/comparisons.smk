# Paired comparisons: one job per enabled benchmark reads every model's per-item outputs
# and writes results/<benchmark>/comparisons.csv (every pair of leaderboard rows on the same
# items, Holm-adjusted; docs/statistics.md). The benchmark's registry entry names the
# function that extracts its items (`comparisons=`) and the files it reads
# (`comparison_inputs=`). summarize_all reads the tables for the leaderboard's ranks.
# Their cost grows with the models: through the executor, packed two to a SLURM job under
# profiles/slurm (`group: comparisons`, group-components in the profile).
from scievals.common.code_digest import code_digest
from scievals.stats.comparisons import COMPARISONS_VERSION

for _bench in ENABLED:
    _params = dict(
        benchmark=_bench.name,
        models=MODELS[_bench.name].all,
        section=config[_bench.name],
        bootstrap=BOOTSTRAP,
        all_pairs=config["comparisons"]["all_pairs"],
        max_family_arms=config["comparisons"]["max_family_arms"],
        # the engine's version and the digest of the code that computes the table (the
        # benchmark's items function and the engine): an edit re-runs it without a bump
        code_version=f"{COMPARISONS_VERSION}+"
        f"{code_digest(_bench.comparisons.split(':')[0], 'scievals.stats.comparisons')[:16]}",
    )

    rule:
        name:
            f"{_bench.name}_comparisons"
        input:
            **_bench.comparison_paths(MODELS[_bench.name].all),
        output:
            _bench.comparisons_table,
        log:
            f"logs/comparisons/{_bench.name}.log",
        benchmark:
            f"logs/benchmarks/comparisons/{_bench.name}.tsv"
        group:
            "comparisons"
        conda:
            "../envs/core.yaml"
        resources:
            mem_mb=2000,
            runtime=60,
        params:
            **_params,
            job=job_param(f"{_bench.name}_comparisons", "comparisons.py", _params),
        shell:
            JOB_SHELL
