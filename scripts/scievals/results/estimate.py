"""``python -m scievals estimate [BENCHMARK ...]``: what a run would send to its LLMs and
what it would cost, before anything is sent.

For each enabled benchmark that names an LLM prediction function in the registry (gating,
autogkb) and each of its LLM models, the benchmark's own prediction code runs on the curated
cases inside :func:`scievals.llm.estimate.estimating`: every request it would make is looked
up in the response cache (a hit costs nothing more), none is sent and nothing is written.
The table gives per model and batch the requests, those the cache answers, those to send,
their input tokens (characters / 4) and the cost range (input only .. input plus
``max_tokens`` of output each, the cost ceiling's reservation; docs/llm.md#cost-ceiling) and
the route its requests take: ``realtime``, or ``batch`` priced at the model's
``batch_price_factor`` (docs/llm.md#batch-mode).
waza is not estimated: an agent's turns depend on its replies.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from scievals import registry
from scievals.common.errors import ScievalsError
from scievals.llm.estimate import BatchEstimate, estimating
from scievals.llm.registry import model_spec
from scievals.workflow_config import merged_config, validated


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "estimate", help="requests and cost a run would send to its LLMs (nothing is sent)")
    parser.add_argument("benchmark", nargs="*", metavar="BENCHMARK",
                        help=f"{', '.join(registry.NAMES)} (default: every enabled one)")
    parser.add_argument("--configfile", action="append", default=[], metavar="FILE",
                        help="your config files, merged over config/config.yaml in order")
    parser.set_defaults(func=_main)


def estimate_run(config: dict, benchmarks: list[str]) -> tuple[list[BatchEstimate], list[str]]:
    """The batches a run of ``benchmarks`` would send, and lines on what was not estimated."""
    batches: list[BatchEstimate] = []
    skipped: list[str] = []
    for name in benchmarks:
        bench = registry.get(name)
        section = config.get(name) or {}
        specs = [model_spec(m, config) for m in section.get("models", [])]
        llms = [spec for spec in specs if spec.is_llm]
        if not llms:
            continue
        if bench.llm_predictions is None:
            skipped.append(f"{name}: not estimated (its LLM turns depend on the replies)")
            continue
        cases_file = Path(bench.cases_file)
        if not cases_file.is_file():
            skipped.append(f"{name}: no curated cases yet ({cases_file}): run "
                           f"'snakemake {name}_curate --cores 1' first")
            continue
        cases = registry.resolve(bench.read_cases)(cases_file)
        predict = registry.resolve(bench.llm_predictions)
        for spec in llms:
            with estimating() as collected:
                predict(cases, spec, config)
            batches += collected.batches
    return batches, skipped


def _usd(value: float | None) -> str:
    return "unpriced" if value is None else f"{value:.4f}"


def table(batches: list[BatchEstimate]) -> str:
    """One line per batch, then one total line per model."""
    header = (f"{'model':20s} {'batch':28s} {'requests':>8s} {'cached':>7s} {'to send':>8s} "
              f"{'~tokens in':>10s}  cost USD (input only .. with max_tokens out)  route")
    lines = [header]
    for b in batches:
        lines.append(f"{b.model:20s} {b.label[:28]:28s} {b.requests:8d} {b.cached:7d} "
                     f"{b.to_send:8d} {b.tokens_in:10d}  {_usd(b.cost_low_usd)} .. "
                     f"{_usd(b.cost_high_usd)}  {b.route}")
    for model in dict.fromkeys(b.model for b in batches):
        mine = [b for b in batches if b.model == model]
        priced = all(b.cost_low_usd is not None for b in mine)
        low = sum(b.cost_low_usd for b in mine) if priced else None
        high = sum(b.cost_high_usd for b in mine) if priced else None
        routes = "+".join(sorted({b.route for b in mine}))
        lines.append(f"{model:20s} {'total':28s} {sum(b.requests for b in mine):8d} "
                     f"{sum(b.cached for b in mine):7d} {sum(b.to_send for b in mine):8d} "
                     f"{sum(b.tokens_in for b in mine):10d}  {_usd(low)} .. {_usd(high)}  "
                     f"{routes}")
    return "\n".join(lines)


def _main(args: argparse.Namespace) -> int:
    config = validated(merged_config(args.configfile))
    names = args.benchmark or [n for n in config.get("benchmarks", registry.NAMES)]
    unknown = [n for n in names if n not in registry.NAMES]
    if unknown:
        raise ScievalsError("estimate", f"unknown benchmark(s) {unknown}",
                            f"name one of {', '.join(registry.NAMES)}")
    batches, skipped = estimate_run(config, names)
    if batches:
        print(table(batches))
    else:
        print("no LLM requests to estimate (no LLM model in these benchmarks)")
    for line in skipped:
        print(line)
    return 0
