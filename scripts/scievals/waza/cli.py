"""``python -m scievals waza ...``: waza's commands on this package.

    waza run PATH [--model M ...] [-o OUT.json | --output-dir DIR] [--context-dir DIR]
                  [--transcript-dir DIR] [--tags T ...] [--judge-model M]
                  [--trials N] [--task ID ...] [--skip-graders] [--config CONFIG.yaml]
    waza grade PATH --results RESULTS.json [--workspace DIR] [--task ID ...] [-o OUT.json]
                                          (alias: score)
    waza grade --recorded RESULTS.json [-o OUT.json]   status/stats from recorded verdicts
    waza check PATH [--strict]                          strict validation, every problem
    waza gate --baseline B.json --current C.json [--max-regression-pct P] [-f FORMAT]
    waza compare R1.json R2.json ... [--format table|json]
    waza grade-one --type T --config C.json --context X.json [--workspace D] [--context-dir D]

PATH is a suite folder or its eval.yaml. Exit codes as in waza: 0 all passed (check:
valid), 1 a task failed or errored or the trigger_accuracy gate failed (check: invalid),
2 a config or runtime error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from scievals.common.errors import ScievalsError
from scievals.common.io import read_yaml, write_json, write_text
from scievals.common.output import add_json_flag, print_check
from scievals.common.subcommands import benchmark_commands
from scievals.waza import gate, metrics, reporters
from scievals.waza.executors.mock import MOCK_MODEL
from scievals.waza.executors.replay import grade_report, recompute
from scievals.waza.grade_one import main as grade_one_main
from scievals.waza.own_results import newer_minor_notes, read_results
from scievals.waza.predict import executor_for, run_suite
from scievals.waza.redact import redact_keys
from scievals.waza.runs import grader_options, regrade, transcript_files
from scievals.waza.suite_paths import output_path
from scievals.waza.suites import check_report, load_suite

DEFAULT_CONFIG = Path(__file__).resolve().parents[3] / "config" / "config.yaml"
EXIT_ERROR = 2
RUN_FORMATS = ("default", "github-comment")


def _config(path: str | None) -> dict:
    """The workflow config's ``models``, ``llm`` and ``waza`` sections. Each registry entry
    used is validated when it is used (``llm.registry.model_spec``, ``LLMSettings``)."""
    where = str(path or DEFAULT_CONFIG)
    config = read_yaml(where)
    if not isinstance(config, dict):
        raise ScievalsError(where, "not a config mapping", "give a scievals config.yaml")
    config.setdefault("models", {})
    config["models"].setdefault("waza_mock", {"provider": "baseline"})
    return config


def _print_outcome(outcome: dict, model: str) -> None:
    summary = outcome["summary"]
    print(f"{outcome['eval_name']} / {model}: {summary['succeeded']}/{summary['total_tests']} "
          f"tasks passed, weighted score {summary['weighted_score']:.3f}", file=sys.stderr)
    for task in outcome["tasks"]:
        print(f"  {task['status']:<8} {task['test_id']}  pass rate "
              f"{task['stats']['pass_rate']:.2f}", file=sys.stderr)
        for run in task["runs"]:
            if run["error_msg"]:
                print(f"           run {run['run_number']}: {run['error_msg']}", file=sys.stderr)
            for name, v in run["validations"].items():
                if not v["passed"]:
                    print(f"           run {run['run_number']}: {name}: {v['feedback']}",
                          file=sys.stderr)
    if "trigger_metrics" in outcome:
        print(f"  trigger accuracy {outcome['trigger_metrics']['accuracy']:.4f}", file=sys.stderr)
    for name, metric in outcome["metrics"].items():
        state = "passed" if metric["passed"] else "FAILED"
        print(f"  metric {name}: {metric['value']:.4f} (threshold {metric['threshold']}) {state}",
              file=sys.stderr)


def cmd_run(args: argparse.Namespace) -> int:
    reports = [reporters.parse_reporter(r) for r in args.reporter or []]
    if args.format not in RUN_FORMATS:
        raise ScievalsError(f"--format {args.format}", "unknown format",
                            f"use one of {', '.join(RUN_FORMATS)}")
    suite = load_suite(args.path, args.context_dir)
    if args.parallel:
        suite.config["parallel"] = True
    if args.workers is not None and args.workers > 0:
        suite.config["workers"] = args.workers
    if not args.model and suite.config.get("executor") == "copilot-sdk":
        raise ScievalsError(f"{suite.path}: config.executor", "copilot-sdk needs an agent model",
                            "name a registry LLM with --model (the llm executor)")
    models = args.model or [MOCK_MODEL]
    if len(models) > 1 and args.output:
        raise ScievalsError("--output", "one file for several models",
                            "use --output-dir DIR (writes DIR/<model>.json)")
    config = (_config(args.config) if models != [MOCK_MODEL] or args.config
              or args.judge_model else {})
    if args.judge_model:
        config.setdefault("waza", {})["judge_model"] = args.judge_model
    options = grader_options(config, suite)
    code = 0
    ab = args.baseline or suite.baseline
    for model in models:
        executor, model_id = executor_for(model, config, suite)
        baseline = executor_for(model, config, suite, skills=False)[0] if ab else None
        recorded = run_suite(suite, model, executor=executor, model_id=model_id,
                             trials=args.trials, options=options, task_filter=args.task,
                             tags=args.tags, baseline_executor=baseline,
                             threads=args.workers or None)
        outcome = regrade(suite, recorded, seed=args.seed, options=options,
                          skip_graders=args.skip_graders, where=f"{suite.name} / {model}")
        outcome = redact_keys(outcome, config)
        if args.format == "github-comment":
            print(reporters.github_comment(outcome), end="")
        else:
            _print_outcome(outcome, model)
        for kind, path in reports:  # written whatever the outcome (waza: only on success)
            if kind == "junit":
                write_text(path, reporters.junit_xml(outcome))
        if args.output:
            write_json(args.output, outcome)
        elif args.output_dir:
            write_json(Path(args.output_dir) / f"{model}.json", outcome)
        if args.transcript_dir:
            prompts = {t.id: t.prompt for t in suite.tasks}
            folder = Path(args.transcript_dir) / (model if len(models) > 1 else "")
            files = redact_keys(transcript_files(outcome, prompts), config)  # prompts too
            for name, content in files.items():
                write_json(output_path(folder, name, f"{suite.path}: transcript"), content)
        code = max(code, metrics.exit_code(outcome))
    return code


def cmd_grade(args: argparse.Namespace) -> int:
    if args.recorded:
        results = read_results(args.recorded)
        for line in newer_minor_notes(results, str(args.recorded)):
            print(f"note: {line}", file=sys.stderr)
        outcome = recompute(results, seed=args.seed)
    else:
        if not args.path or not args.results:
            raise ScievalsError("waza grade", "needs PATH and --results (or --recorded)",
                                "e.g. waza grade suite/eval.yaml --results results.json")
        suite = load_suite(args.path, args.context_dir)
        config = _config(args.config) if args.config or args.judge_model else {}
        if args.judge_model:
            config.setdefault("waza", {})["judge_model"] = args.judge_model
        options = grader_options(config, suite)
        results = read_results(args.results)
        for line in newer_minor_notes(results, str(args.results), suite.grader_types()):
            print(f"note: {line}", file=sys.stderr)
        outcome = regrade(suite, results, seed=args.seed, options=options,
                          workspace=args.workspace, task_filter=args.task,
                          where=str(args.results))
        outcome = redact_keys(outcome, config)
    if args.output:
        write_json(args.output, outcome)
    print(json.dumps(grade_report(outcome), indent=2))
    return metrics.exit_code(outcome)


def cmd_check(args: argparse.Namespace) -> int:
    problems, warnings = check_report(args.path, args.context_dir, strict=args.strict)
    return print_check(args.path, problems, warnings, as_json=args.json)


def cmd_gate(args: argparse.Namespace) -> int:
    """waza's exit codes: 0 pass, 1 regression, 2 golden failure, 3 config error."""
    try:
        options = gate.GateOptions.from_flags(args.max_regression_pct, args.golden_must_pass,
                                              args.on_new_tasks, args.on_removed_tasks)
        if args.format not in gate.GATE_FORMATS:
            raise ScievalsError(f"--format {args.format}", "unknown format",
                                f"use one of {', '.join(gate.GATE_FORMATS)}")
        report = gate.gate(gate.load_results(args.baseline), gate.load_results(args.current),
                           options, args.baseline, args.current)
    except ScievalsError as exc:
        print(f"error: {exc.one_line()}", file=sys.stderr)
        return gate.EXIT_CONFIG
    print(gate.GATE_FORMATS[args.format](report), end="")
    return report["exit_code"]


def cmd_compare(args: argparse.Namespace) -> int:
    report = gate.compare(args.files)
    print(json.dumps(report, indent=2) if args.format == "json" else
          gate.compare_table(report), end="\n" if args.format == "json" else "")
    return 0


def cmd_grade_one(args: argparse.Namespace) -> int:
    return grade_one_main(args)


def _guard(function):
    """waza's exit code 2 (config or runtime error) with one line instead of a traceback."""
    def wrapped(args: argparse.Namespace) -> int:
        try:
            return function(args)
        except ScievalsError as exc:
            print(f"error: {exc.one_line()}", file=sys.stderr)
            return EXIT_ERROR
    return wrapped


def register(subparsers) -> None:
    sub = benchmark_commands(subparsers, "waza", "agent-skill evaluation suites (waza)",
                             __doc__)

    p = sub.add_parser("run", help="run a suite with the mock executor or an LLM agent")
    p.add_argument("path", help="suite folder or its eval.yaml")
    p.add_argument("--model", action="append",
                   help="registry model (repeatable); default waza_mock (the mock executor)")
    p.add_argument("--config", help="workflow config with the model registry "
                   "(default: config/config.yaml)")
    p.add_argument("-o", "--output", help="write the results JSON here")
    p.add_argument("--output-dir", help="write <model>.json per model here")
    p.add_argument("--transcript-dir", help="write one transcript JSON per run here (as waza)")
    p.add_argument("--context-dir", help="fixtures folder (default: <suite>/fixtures)")
    p.add_argument("--trials", type=int, help="runs per task (default: config.trials_per_task)")
    p.add_argument("--task", action="append", help="only this task id or name (repeatable)")
    p.add_argument("--tags", action="append", help="only tasks with this tag (repeatable)")
    p.add_argument("--judge-model", help="registry LLM judging prompt/llm graders")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: %(default)s)")
    p.add_argument("--skip-graders", action="store_true", help="execute only; runs are skipped")
    p.add_argument("--baseline", action="store_true",
                   help="A/B: run every task again without skills (as baseline: true)")
    p.add_argument("--parallel", action="store_true", help="run tasks concurrently")
    p.add_argument("--workers", type=int, help="concurrent tasks (default: config.workers, "
                   "0 = min(CPUs, tasks, 8))")
    p.add_argument("--reporter", action="append",
                   help="junit:PATH writes JUnit XML (one testcase per task); repeatable")
    p.add_argument("--format", default="default",
                   help="stdout summary: default, or github-comment (markdown)")
    p.set_defaults(func=_guard(cmd_run))

    p = sub.add_parser("grade", aliases=["score"], help="grade runs recorded elsewhere (replay)")
    p.add_argument("path", nargs="?", help="suite folder or its eval.yaml")
    p.add_argument("--results", help="results JSON whose runs to grade with the suite's graders")
    p.add_argument("--recorded", help="results JSON: re-derive status/stats from its verdicts")
    p.add_argument("--workspace", help="the agent's workspace (for file/diff graders)")
    p.add_argument("--context-dir", help="fixtures folder (default: <suite>/fixtures)")
    p.add_argument("--config", help="workflow config whose registry holds the judge model")
    p.add_argument("--judge-model", help="registry LLM judging prompt/llm graders")
    p.add_argument("--task", action="append", help="only this task id (repeatable)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: %(default)s)")
    p.add_argument("-o", "--output", help="write the graded results JSON here")
    p.set_defaults(func=_guard(cmd_grade))

    p = sub.add_parser("check",
                       help="validate a suite strictly (schemas + required keys)")
    p.add_argument("path", help="suite folder or its eval.yaml")
    p.add_argument("--context-dir", help="fixtures folder (default: <suite>/fixtures)")
    p.add_argument("--strict", action="store_true",
                   help="unknown keys of a schemaVersion 1.x suite are errors, not warnings")
    add_json_flag(p)
    p.set_defaults(func=_guard(cmd_check))

    p = sub.add_parser("gate", help="regression gate: current results against a baseline")
    p.add_argument("--baseline", required=True, help="baseline results JSON")
    p.add_argument("--current", required=True, help="current results JSON")
    # read as text and checked by the gate: a bad value is exit 3, not argparse's 2
    p.add_argument("--max-regression-pct", default="0",
                   help="allowed drop of success_rate in percentage points (default 0)")
    p.add_argument("--golden-must-pass", default="true",
                   help="golden tasks must pass in the current run (default true)")
    p.add_argument("--on-new-tasks", default="allow", help="allow|warn|fail (default allow)")
    p.add_argument("--on-removed-tasks", default="warn", help="allow|warn|fail (default warn)")
    p.add_argument("-f", "--format", default="human",
                   help="human|json|markdown|github-actions (default human)")
    p.set_defaults(func=cmd_gate)

    p = sub.add_parser("compare", help="results files side by side")
    p.add_argument("files", nargs="+", help="two or more results JSON files")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.set_defaults(func=_guard(cmd_compare))

    p = sub.add_parser("grade-one", help="one grader on one recorded context (debugging)")
    p.add_argument("--type", required=True, help="grader type, e.g. text, code, file")
    p.add_argument("--config", required=True, help="grader config JSON file")
    p.add_argument("--context", required=True, help="context JSON (output, transcript, ...)")
    p.add_argument("--workspace", help="the agent's workspace (absent: no workspace)")
    p.add_argument("--context-dir", help="fixtures directory")
    p.set_defaults(func=_guard(cmd_grade_one))
