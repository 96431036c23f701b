# Figures of the HTML report: `snakemake --cores 8` makes them (rule all collects
# REPORT_FIGURES), then `snakemake --report results/report.html` bundles figures, captions,
# the rule graph and the run statistics into one self-contained file (`--report-after-run`
# does both in one command). The figure functions are named, not imported, here (matplotlib
# is the `report` extra), so a core install parses this file.
#
# One job per enabled benchmark draws the figures of its registry entry (`figures=`); a
# benchmark without figures gets the generic model comparison. Captions:
# report/<benchmark>/<figure>.rst, else report/generic/<figure>.rst. Figure inputs:
# "summary" (every benchmark) plus the benchmark's `report_inputs`.
from scievals.report.workflow import caption_path, data_source, figure_job, report_inputs

REPORT_FIGURES = []

for _bench in ENABLED:
    _benchmark = _bench.name
    _inputs = report_inputs(_bench, MODELS[_benchmark].all)
    _outputs, _figures = {}, []
    for _figure in _bench.report_figures():
        _path = f"results/report/{_benchmark}/{_figure.name}"
        _labels = {"benchmark": _benchmark, "figure": _figure.label}
        _caption = caption_path(workflow.basedir, _benchmark, _figure.name)
        if _figure.directory:
            _outputs[_figure.name] = report(
                directory(_path),
                patterns=["{item}.png"],
                caption=_caption,
                category=_benchmark,
                subcategory=_figure.label,
                labels={**_labels, "item": "{item}"},
            )
        else:
            _path += ".png"
            _outputs[_figure.name] = report(
                _path,
                caption=_caption,
                category=_benchmark,
                subcategory=_figure.label,
                labels=_labels,
            )
        REPORT_FIGURES.append(_path)
        _figures.append(figure_job(_figure))

    _params = dict(
        benchmark=_benchmark,
        figures=_figures,
        models=MODELS[_benchmark].all,
        data_source=data_source(_benchmark, config),
    )

    # One job draws every figure of a benchmark: matplotlib is loaded once, not per figure.
    rule:
        name:
            f"report_{_benchmark}"
        input:
            **_inputs,
        output:
            **_outputs,
        log:
            f"logs/report/{_benchmark}.log",
        group:
            "report"
        conda:
            "../envs/report.yaml"
        resources:
            mem_mb=1000,
            runtime=10,
        params:
            **_params,
            job=job_param(f"report_{_benchmark}", "report_figure.py", _params),
        shell:
            JOB_SHELL


# The leaderboard (python -m scievals show) as the report's first page: Snakemake's report
# opens on the workflow description (report/workflow.rst), which embeds the fragment. The
# page (each model linked to its items in the sample viewer) stays beside the viewer in
# results/report/ and is not bundled again: the report carries the leaderboard once.
REPORT_FIGURES.append("results/report/leaderboard.html")
LEADERBOARD_FRAGMENT = "results/report/leaderboard_fragment.html"  # report/workflow.rst reads it


rule report_leaderboard:
    input:
        "results/summary.csv",
        comparisons=[b.comparisons_table for b in ENABLED],
    output:
        page="results/report/leaderboard.html",
        # Shown inline on the report's first page (report/workflow.rst includes it).
        fragment=LEADERBOARD_FRAGMENT,
    log:
        "logs/report/leaderboard.log",
    # a page of every model: through the executor, packed with the figures
    group:
        "report"
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        "../envs/core.yaml"
    params:
        bootstrap=BOOTSTRAP,
        job=job_param("report_leaderboard", "report_leaderboard.py", {"bootstrap": BOOTSTRAP}),
    shell:
        JOB_SHELL


# The sample viewer: every scored item of every model (input, reply, expected answer, parse
# status, metrics, score, rationale, cost), a static page with one data file per (benchmark,
# model) in results/report/samples/, loaded on demand (scievals.report.viewer); each
# benchmark's items come from the function its registry entry names as `samples`.
REPORT_FIGURES.append("results/report/samples.html")
_SAMPLE_MODELS = {_benchmark: MODELS[_benchmark].all for _benchmark in BENCHMARKS}


rule report_samples:
    input:
        [table for _benchmark in BENCHMARKS for table in score_tables(_benchmark)],
        # the leaderboard page beside the viewer links into it: built (or refreshed) with it,
        # so `snakemake results/report/samples.html` never leaves a stale one beside it
        leaderboard="results/report/leaderboard.html",
    output:
        report(
            "results/report/samples.html",
            caption="../report/samples.rst",
            category="Samples",
            labels={"page": "sample viewer"},
        ),
        data=directory("results/report/samples"),
    log:
        "logs/report/samples.log",
    # a page of every model: through the executor, packed with the figures
    group:
        "report"
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        "../envs/core.yaml"
    params:
        models=_SAMPLE_MODELS,
        job=job_param("report_samples", "report_samples.py", {"models": _SAMPLE_MODELS}),
    shell:
        JOB_SHELL


rule report_figures:
    input:
        REPORT_FIGURES,
    localrule: True
