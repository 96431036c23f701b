# Figures of the HTML report: `snakemake --cores 8` makes them (rule all collects
# REPORT_FIGURES), then `snakemake --report results/report.html` bundles figures, captions,
# the rule graph and the run statistics into one self-contained file.
#
# One job per (benchmark, figure) of each enabled benchmark's registry entry (`figures=`);
# a benchmark without figures gets the generic model comparison. Captions:
# report/<benchmark>/<figure>.rst, else report/generic/<figure>.rst. Figure inputs:
# "summary" (every benchmark) plus the benchmark's `report_inputs`.
from scievals.report.workflow import caption_path, data_source, report_inputs

REPORT_FIGURES = []

for _bench in ENABLED:
    _benchmark = _bench.name
    _inputs = report_inputs(_bench, MODELS[_benchmark].all)
    for _figure in _bench.report_figures():
        _path = f"results/report/{_benchmark}/{_figure.name}"
        _labels = {"benchmark": _benchmark, "figure": _figure.label}
        if _figure.directory:
            _output = report(
                directory(_path),
                patterns=["{item}.png"],
                caption=caption_path(workflow.basedir, _benchmark, _figure.name),
                category=_benchmark,
                subcategory=_figure.label,
                labels={**_labels, "item": "{item}"},
            )
        else:
            _path += ".png"
            _output = report(
                _path,
                caption=caption_path(workflow.basedir, _benchmark, _figure.name),
                category=_benchmark,
                subcategory=_figure.label,
                labels=_labels,
            )
        REPORT_FIGURES.append(_path)

        rule:
            name:
                f"report_{_benchmark}_{_figure.name}"
            input:
                **{name: _inputs[name] for name in _figure.inputs},
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
                function=_figure.function,
                models=MODELS[_benchmark].all,
                data_source=data_source(_benchmark, config),
            script:
                "../scripts/report_figure.py"


rule report_figures:
    input:
        REPORT_FIGURES,
    localrule: True
