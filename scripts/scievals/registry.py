"""The benchmark registry: the one list of benchmarks.

A benchmark is one package (``scievals/<name>/``) plus one :class:`Benchmark` line in
:data:`REGISTRY`. Config validation (:mod:`scievals.workflow_config`), the CLI, the Snakefile's includes, the summary
and the report loop over this list; nothing else names a benchmark. The how-to is
``docs/adding-a-benchmark.md``.

Everything that needs the benchmark's own code (CLI module, figure functions, code
versions) is named as ``"module:attribute"``: the CLI and figures are imported only when
used, and code versions are read from the module's source (:func:`literal_constant`), so
reading the registry (the Snakefile does it at every start) imports no benchmark.
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import MappingProxyType

from scievals.common.workflow import Stage, benchmark_models
from scievals.figures.spec import GENERIC_FIGURES, FigureSpec

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_ROOT = Path(__file__).resolve().parents[1]  # the folder holding the scievals package


def resolve(reference: str):
    """The object a ``"module:attribute"`` reference names."""
    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)


def literal_constant(reference: str):
    """The value of a module-level constant (``"module:NAME"``), read from the module's source
    without importing it when it is a one-line literal: the Snakefile asks for every code
    version at each start, and importing the benchmark modules would load pandas and scipy
    just to parse. A constant computed from others (waza's metrics version joins its graders'
    version) is imported: such a module keeps its top-level imports light."""
    module, _, name = reference.partition(":")
    base = PACKAGE_ROOT.joinpath(*module.split("."))
    path = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
    assigned = _module_assignments(path)
    if name not in assigned:
        raise KeyError(f"{reference}: {path} assigns no {name} at module level")
    try:
        # the line's value, or its value without a trailing comment
        return ast.literal_eval(ast.parse(assigned[name], mode="eval").body)
    except (ValueError, SyntaxError):
        return resolve(reference)


# NAME[: annotation] = value, on one line at column 0 (ast.parse drops a trailing comment)
_ASSIGNMENT = re.compile(r"^([A-Za-z_]\w*)[ \t]*(?::[^=\n]+)?=[ \t]*([^\n]+)$", re.MULTILINE)


@cache
def _module_assignments(path: Path) -> dict[str, str]:
    """Module-level ``NAME = value`` lines of a source file: name -> the value's source text
    (the first one wins, as a constant is assigned once)."""
    out: dict[str, str] = {}
    for name, value in _ASSIGNMENT.findall(path.read_text(encoding="utf-8")):
        out.setdefault(name, value)
    return out


@cache
def _ranges(reference: str) -> dict:
    """The ranges declared at ``reference`` with the k-sample rows' (read once per run)."""
    # here, not at the top: the Snakefile's parse imports the registry, not the statistics
    from scievals.stats.samples import derived_ranges

    return derived_ranges(literal_constant(reference))


@dataclass(frozen=True)
class Benchmark:
    """One benchmark: what the workflow, the CLI and the report need to know about it."""

    name: str
    title: str
    # Built-in deterministic predictors (registry entries `provider: baseline`).
    baselines: tuple[str, ...]
    # Bring-your-own files: predictions/<name>/<model><byo_suffix> (config `predictions_dir`).
    byo_suffix: str
    # What each predict/score rule depends on: a change re-runs exactly those jobs.
    # Role (the rule's step: "predict_baseline", "predict_llm", "score") -> "module:CONSTANT".
    code_versions: Mapping[str, str]
    # Report figures; empty means the generic model comparison.
    figures: tuple[FigureSpec, ...] = ()
    # Extra report inputs the figures read: input name -> path pattern ({model} per model).
    report_inputs: Mapping[str, str] = field(default_factory=dict)
    # Leaderboard columns (``python -m scievals show``, results/leaderboard.md): metric names
    # of the summary, in order; the first one ranks the models.
    headline_metrics: tuple[str, ...] = ()
    # Only summary rows of this condition are headline (None: every condition).
    headline_condition: str | None = None
    # Modules holding the benchmark's LLM prompt templates: the run record keeps the sha256
    # of each one's source (scievals.report.run_manifest).
    prompt_modules: tuple[str, ...] = ()
    # "module:function" (root, model) -> list[scievals.common.samples.Sample]: the model's
    # scored items for the report's sample viewer (scievals.report.viewer); None: none.
    samples: str | None = None
    # What ``n`` counts in the benchmark's rows (the leaderboard says it under each table).
    n_meaning: str = "scored items"
    # Paired comparisons (results/<name>/comparisons.csv, rules/comparisons.smk): the
    # "module:function" turning the inputs into per-item metrics
    # (scievals.stats.comparisons), called as f(inputs, models, headline_metrics, section, bootstrap, ranges)
    # (ranges: :meth:`ranges`);
    # its inputs: name -> path pattern ({model}: one path per model, in the models' order).
    # The default fits a benchmark whose per_case.csv has ``model``, ``condition``,
    # ``case_id`` and one column per headline metric (a per-item mean).
    comparisons: str = "scievals.stats.comparisons:per_case_means"
    comparison_inputs: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({
        "per_case": "results/{benchmark}/scores/{model}.per_case.csv",
        "table": "results/{benchmark}/scores/{model}.csv"}))
    # What one scored item is, for the leaderboard footer ("with 15 cases, ...").
    item_noun: str = "items"
    # "module:NAME" of the metrics' declared ranges (metric pattern -> (low, high), see
    # scievals.stats.intervals.metric_range): a difference's interval stays within +-(high - low).
    metric_ranges: str | None = None
    # Set where each dataset is one small part of the benchmark (waza: a suite): the
    # leaderboard then shows every dataset in one table, with this column and a pooled row
    # per model, instead of one table per dataset.
    dataset_column: str | None = None
    # Estimates before sending (``python -m scievals estimate``, scievals.llm.estimate): the
    # "module:function" making the benchmark's LLM predictions from (cases, ModelSpec,
    # config), and its curated case file with the "module:function" reading it. None: not
    # estimated (waza: an agent's turns depend on its replies).
    llm_predictions: str | None = None
    cases_file: str | None = None
    read_cases: str | None = None

    def ranges(self) -> dict:
        """The declared metric ranges (empty: every metric unbounded), extended to the rows
        k samples per item add (best-of-k, consensus, ...: :func:`derived_ranges`)."""
        return dict(_ranges(self.metric_ranges)) if self.metric_ranges else {}

    @property
    def cli(self) -> str:
        """Module with ``register(subparsers)``: the ``python -m scievals <name>`` commands."""
        return f"scievals.{self.name}.cli"

    @property
    def schema(self) -> Path:
        return ROOT / "config" / "schemas" / f"{self.name}.schema.yaml"

    @property
    def rules(self) -> Path:
        """Rules specific to this benchmark, if it has any (the shared ones are generated)."""
        return ROOT / "rules" / f"{self.name}.smk"

    @property
    def workflow(self) -> str:
        """Module with ``stages(config, models)``: the generated rules' paths, inputs, params."""
        return f"scievals.{self.name}.workflow"

    @property
    def score_module(self) -> str:
        """Module with ``score(job: ScoreJob)`` (scripts/score.py calls it)."""
        return f"scievals.{self.name}.score"

    def stages(self, config: Mapping) -> dict[str, Stage]:
        """The generated rules of this benchmark under a validated ``config``: role -> Stage."""
        models = benchmark_models(config, self.name, self.byo_suffix)
        return importlib.import_module(self.workflow).stages(config, models)

    @property
    def score_table(self) -> str:
        """The long-format table of one model that the summary merges."""
        return f"results/{self.name}/scores/{{model}}.csv"

    @property
    def comparisons_table(self) -> str:
        """Paired differences between the arms (rules/comparisons.smk)."""
        return f"results/{self.name}/comparisons.csv"

    def comparison_paths(self, models) -> dict[str, list[str]]:
        """The comparisons job's inputs: name -> paths (one per model where the pattern
        has ``{model}``)."""
        return {name: [pattern.format(model=m, benchmark=self.name) for m in models]
                if "{model}" in pattern else [pattern.format(benchmark=self.name)]
                for name, pattern in self.comparison_inputs.items()}

    @property
    def runs_llms(self) -> bool:
        """Whether the benchmark sends items to LLMs (it has a ``predict_llm`` rule, whose
        code version is registered); else a model is scored only from its own files."""
        return "predict_llm" in self.code_versions

    def code_version(self, role: str) -> str:
        """The version constant of the code behind ``role`` (a rule param)."""
        return str(literal_constant(self.code_versions[role]))

    def report_figures(self) -> tuple[FigureSpec, ...]:
        return self.figures or GENERIC_FIGURES

    def figure(self, name: str) -> FigureSpec:
        for spec in self.report_figures():
            if spec.name == name:
                return spec
        raise KeyError(f"no figure {name!r} for benchmark {self.name!r}")


REGISTRY: tuple[Benchmark, ...] = (
    Benchmark(
        name="abdev",
        samples="scievals.abdev.samples:samples",
        n_meaning="antibodies with a measured value for the assay (all folds)",
        title="Antibody developability on GDPa1 (5 assays, 5-fold CV)",
        baselines=("random", "ridge_descriptors"),
        byo_suffix=".csv",
        code_versions=MappingProxyType({
            "predict_baseline": "scievals.abdev.predict:BASELINE_VERSION",
            "score": "scievals.abdev.metrics:METRICS_VERSION",
        }),
        figures=(
            FigureSpec("model_comparison", "Model comparison",
                       "scievals.abdev.figures:model_comparison"),
            FigureSpec("assay_heatmap", "Spearman per assay and model",
                       "scievals.abdev.figures:assay_heatmap"),
        ),
        # The reference leaderboard's ranking: per-fold CV average of each assay.
        headline_metrics=tuple(f"{assay}:{metric}" for metric in ("spearman", "top_10_recall")
                               for assay in ("HIC", "Tm2", "Titer", "PR_CHO", "AC-SINS_pH7.4")),
        headline_condition="fold=average",
        comparisons="scievals.abdev.comparisons:item_metrics",
        comparison_inputs=MappingProxyType({
            "pred": "results/abdev/predictions/{model}.csv",
            "table": "results/abdev/scores/{model}.csv",
            "truth": "data/raw/abdev/GDPa1.csv",
            "clusters": "data/raw/abdev/sequence_clusters.csv",
        }),
        item_noun="antibodies",
        metric_ranges="scievals.abdev.metrics:METRIC_RANGES",
    ),
    Benchmark(
        name="gating",
        samples="scievals.gating.samples:samples",
        n_meaning="cases (usage rows: requests)",
        title="Flow-cytometry gating hierarchies (OMIP cases, FlowJo workspaces)",
        baselines=("marker_baseline",),
        byo_suffix=".jsonl",
        code_versions=MappingProxyType({
            "predict_baseline": "scievals.gating.predict:BASELINE_VERSION",
            "predict_llm": "scievals.gating.prompts:PROMPT_VERSION",
            "import": "scievals.gating.parser:PARSER_VERSION",
            "score": "scievals.gating.metrics:METRICS_VERSION",
        }),
        figures=(
            FigureSpec("model_comparison", "Model comparison",
                       "scievals.gating.figures:model_comparison"),
            FigureSpec("case_heatmap", "Scores per test case",
                       "scievals.gating.figures:case_heatmap", ("per_case",)),
            FigureSpec("hierarchies", "True vs predicted hierarchies",
                       "scievals.gating.figures:hierarchies", ("cases", "predictions"),
                       directory=True),
            FigureSpec("reliability", "Reliability of stated confidence",
                       "scievals.gating.figures:reliability", ("per_case",)),
            FigureSpec("risk_coverage", "Risk-coverage of stated confidence",
                       "scievals.gating.figures:risk_coverage", ("per_case",)),
        ),
        report_inputs=MappingProxyType({
            "per_case": "results/gating/scores/{model}.per_case.csv",
            "cases": "data/curated/gating/cases.jsonl",
            "predictions": "results/gating/predictions/{model}.jsonl",
        }),
        prompt_modules=("scievals.gating.prompts",),
        headline_metrics=("hierarchy_f1", "structure_accuracy", "structure_coverage",
                          "critical_gate_recall", "hallucination_rate", "depth_accuracy"),
        # comparisons: per_case.csv's per-item means of the headline metrics, and the
        # calibration metrics of its units column (a paired cluster bootstrap over cases)
        comparisons="scievals.stats.calibration_rows:per_case_with_calibration",
        item_noun="cases",
        metric_ranges="scievals.gating.metrics:METRIC_RANGES",
        llm_predictions="scievals.gating.predict:llm_predictions",
        cases_file="data/curated/gating/cases.jsonl",
        read_cases="scievals.gating.cases:read_cases",
    ),
    Benchmark(
        name="autogkb",
        samples="scievals.autogkb.samples:samples",
        n_meaning="articles (usage rows: requests)",
        title="Pharmacogenomic variant-phenotype annotation extraction (ClinPGx / AutoGKB)",
        baselines=("autogkb_baseline",),
        byo_suffix=".json",
        code_versions=MappingProxyType({
            "predict_baseline": "scievals.autogkb.baseline:BASELINE_VERSION",
            "predict_llm": "scievals.autogkb.prompts:PROMPT_VERSION",
            "score": "scievals.autogkb.metrics:METRICS_VERSION",
        }),
        figures=(
            FigureSpec("model_comparison", "Model comparison",
                       "scievals.autogkb.figures:model_comparison"),
            FigureSpec("field_similarity", "Field similarity by model",
                       "scievals.autogkb.figures:field_similarity"),
            FigureSpec("reliability", "Reliability of stated confidence",
                       "scievals.autogkb.figures:reliability", ("per_case",)),
            FigureSpec("risk_coverage", "Risk-coverage of stated confidence",
                       "scievals.autogkb.figures:risk_coverage", ("per_case",)),
        ),
        report_inputs=MappingProxyType({
            "per_case": "results/autogkb/scores/{model}.per_case.csv",
        }),
        prompt_modules=("scievals.autogkb.prompts",),
        # one_to_one_score ranks: duplicated predictions raise the reference's score (a
        # kept quirk, still shown) but not this one.
        headline_metrics=("one_to_one_score", "score", "f1"),
        # comparisons: as gating's (per-item means, then the calibration set metrics)
        comparisons="scievals.stats.calibration_rows:per_case_with_calibration",
        item_noun="articles",
        metric_ranges="scievals.autogkb.metrics:METRIC_RANGES",
        llm_predictions="scievals.autogkb.predict:llm_predictions",
        cases_file="data/curated/autogkb/cases.jsonl",
        read_cases="scievals.autogkb.curate:read_cases",
    ),
    Benchmark(
        name="waza",
        samples="scievals.waza.samples:samples",
        n_meaning="tasks of the suite (trigger metrics: trigger prompts)",
        title="Agent-skill evaluation suites in waza's format (graders, pass rate, triggers)",
        baselines=("waza_mock",),
        byo_suffix=".json",
        code_versions=MappingProxyType({
            "predict_baseline": "scievals.waza.executors.mock:BASELINE_VERSION",
            "predict_llm": "scievals.waza.executors.agent:PROMPT_VERSION",
            "score": "scievals.waza.metrics:METRICS_VERSION",
            "import": "scievals.waza.own_results:PARSER_VERSION",  # how own files are read
        }),
        figures=(
            FigureSpec("suite_comparison", "Pass rate and weighted score per suite",
                       "scievals.waza.figures:suite_comparison"),
        ),
        prompt_modules=("scievals.waza.executors.agent",),  # the agent's system prompt
        headline_metrics=("pass_rate", "weighted_score", "trigger_accuracy"),
        comparisons="scievals.waza.comparisons:item_metrics",
        comparison_inputs=MappingProxyType({
            "graded": "results/waza/graded/{model}.json",
            "download": "data/raw/waza/source.json",
        }),
        item_noun="tasks",
        metric_ranges="scievals.waza.metrics:METRIC_RANGES",
        dataset_column="suite",
    ),
)

NAMES: tuple[str, ...] = tuple(b.name for b in REGISTRY)
_BY_NAME = {b.name: b for b in REGISTRY}


def get(name: str) -> Benchmark:
    """The registered benchmark ``name`` (KeyError naming the known ones otherwise)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"no benchmark {name!r}; registered: {list(NAMES)}") from None


def enabled(config: Mapping) -> list[Benchmark]:
    """The benchmarks the (validated) config's ``benchmarks:`` list enables, in its order."""
    return [get(name) for name in config["benchmarks"]]
