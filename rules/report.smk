# Figures of the HTML report: `snakemake --cores 8` makes them (rule all collects
# REPORT_FIGURES), then `snakemake --report results/report.html` bundles figures, captions,
# the rule graph and the run statistics into one self-contained file.
#
# One job per (benchmark, figure) in scievals.report.registry.FIGURES; a benchmark without
# an entry there gets the generic model comparison. Captions: report/<benchmark>/<figure>.rst,
# else report/generic/<figure>.rst. Include this file after the benchmarks' rule files.
from scievals.report.registry import figures_for

# Input name (FigureSpec.inputs) -> files, per benchmark. "summary" works for every
# benchmark; a benchmark whose figures read other files adds them here.
REPORT_INPUTS = {
    "summary": lambda b: [f"results/{b}/summary.csv"],
    "per_case": lambda b: expand(
        "results/{b}/per_case/{model}.csv", b=b, model=report_models(b)
    ),
    "cases": lambda b: [f"data/curated/{b}/cases.jsonl"],
    "predictions": lambda b: expand(
        "results/{b}/predictions/{model}.jsonl", b=b, model=report_models(b)
    ),
}


def report_models(benchmark):
    """The models a benchmark scores: the stems of its score tables (BYO files included)."""
    if benchmark in SCORE_TABLES:
        return [Path(p).stem for p in SCORE_TABLES[benchmark]()]
    return list(config.get(benchmark, {}).get("models", []))


def report_caption(benchmark, figure):
    own = Path(workflow.basedir) / "report" / benchmark / f"{figure}.rst"
    return f"../report/{benchmark}/{figure}.rst" if own.exists() else f"../report/generic/{figure}.rst"


def report_data_source(benchmark):
    section = config.get(benchmark, {})
    return str(section.get("source", "the benchmark's configured sources"))


REPORT_FIGURES = []

for _benchmark in BENCHMARKS:
    for _figure in figures_for(_benchmark):
        _path = f"results/report/{_benchmark}/{_figure.name}"
        _labels = {"benchmark": _benchmark, "figure": _figure.label}
        if _figure.directory:
            _output = report(
                directory(_path),
                patterns=["{item}.png"],
                caption=report_caption(_benchmark, _figure.name),
                category=_benchmark,
                subcategory=_figure.label,
                labels={**_labels, "item": "{item}"},
            )
        else:
            _path += ".png"
            _output = report(
                _path,
                caption=report_caption(_benchmark, _figure.name),
                category=_benchmark,
                subcategory=_figure.label,
                labels=_labels,
            )
        REPORT_FIGURES.append(_path)

        rule:
            name:
                f"report_{_benchmark}_{_figure.name}"
            input:
                **{name: REPORT_INPUTS[name](_benchmark) for name in _figure.inputs},
            output:
                _output,
            log:
                f"logs/report/{_benchmark}/{_figure.name}.log",
            group:
                "report"
            conda:
                "../envs/report.yaml"
            resources:
                mem_mb=1000,
                runtime=10,
            params:
                benchmark=_benchmark,
                figure=_figure.name,
                models=report_models(_benchmark),
                data_source=report_data_source(_benchmark),
            script:
                "../scripts/report_figure.py"


rule report_figures:
    input:
        REPORT_FIGURES,
    localrule: True
