"""The score stage: grade one model's recorded runs, then aggregate them into tables.

``score(job)`` (the stage contract, :class:`scievals.common.jobs.ScoreJob`): each of
``job.predictions`` is either a suite's recorded runs from the predict stage
(``<suite>.json``, ungraded) or an imported own results file (``{"suites": {suite:
results}}``, see :func:`scievals.waza.predict.import_predictions`). Every run is graded
here with the suite's graders (:func:`scievals.waza.runs.regrade`, recorded workspaces
rebuilt in temporary directories), so a changed grader or a new own file re-grades
without running any agent; the graded results go to ``job.outputs["graded"]`` when given.
Rows per suite come from :mod:`~scievals.waza.metrics`, the review from
:mod:`~scievals.waza.review`. The dataset is the suite's folder name (``<suite>-demo``
for the embedded suites); its sha256 covers every file of the suite.

``job.truth``: ``suites`` (the copied suite folders) and ``source`` (``source.json``).
``job.settings``: ``seed`` (waza's task-stats bootstrap seed) and ``config`` (the waza
section, LLM settings and registry entries a judge needs; see ``workflow.score_config``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from scievals.common import notices
from scievals.common.errors import ScievalsError
from scievals.common.io import read_json, sha256_text, write_csv, write_json, write_text
from scievals.common.jobs import ScoreJob
from scievals.common.provenance import Provenance
from scievals.common.selection import say_limited
from scievals.common.tables import result_rows, write_result_table
from scievals.llm.usage_rows import usage_metric_rows
from scievals.waza import metrics, recording, runs
from scievals.waza.own_results import check_results
from scievals.waza.redact import redact_keys
from scievals.waza.review import review, review_html
from scievals.waza.suites import load_suite


def usage_of(predictions: tuple[Path, ...]) -> dict[str, dict]:
    """Suite name -> an LLM agent's usage record (``<suite>.usage.json`` beside the
    suite's recorded runs; none for the mock and for own files)."""
    found = {}
    for path in predictions:
        usage = path.with_name(f"{path.stem}.usage.json")
        if usage.is_file():
            found[path.stem] = read_json(usage)
    return found


def recorded_of(predictions: tuple[Path, ...]) -> dict[str, tuple[dict, str]]:
    """Suite name -> (results, file): predict-stage files are named ``<suite>.json``; an
    imported file holds ``{"suites": {suite: results}}``."""
    found: dict[str, tuple[dict, str]] = {}
    for path in predictions:
        data = read_json(path)
        imported = isinstance(data, dict) and isinstance(data.get("suites"), dict)
        for suite, results in (data["suites"].items() if imported else [(path.stem, data)]):
            where = f"{path}: suites.{suite}" if imported else str(path)
            if suite in found:
                raise ScievalsError(where, f"a second results object for suite {suite}",
                                    "give one per suite")
            found[suite] = (check_results(results, where), where)
    return found


def grade(job: ScoreJob) -> dict[str, dict]:
    """Suite name -> graded results JSON of every recorded suite of ``job``."""
    config = dict(job.settings.get("config") or {})
    seed = int(job.settings.get("seed") or 0)
    outcomes = {}
    for suite_name, (results, where) in sorted(recorded_of(job.predictions).items()):
        suite = load_suite(Path(job.truth["suites"]) / suite_name)
        outcome = redact_keys(runs.regrade(suite, results, seed=seed,
                                           options=runs.grader_options(config, suite),
                                           where=where), config)
        notify_errors(suite_name, job.model, outcome)
        outcomes[suite_name] = outcome
    return outcomes


def notify_errors(suite: str, model: str, outcome: Mapping) -> None:
    """Errored runs (model error, timeout, no final answer, grader error) are said at the
    end of the workflow run, not only inside the results JSON."""
    errors = [(t["test_id"], r["run_number"], r["error_msg"]) for t in outcome["tasks"]
              for r in t["runs"] if r["status"] == "error"]
    if errors:
        task, run, message = errors[0]
        notices.record("failed_request", "waza", f"{suite} / {model}: {len(errors)} run(s) "
                       f"ended in error, e.g. {task} run {run}: {message}",
                       details={"runs": [list(e) for e in errors]})


def tables(job: ScoreJob, outcomes: Mapping[str, Mapping]) -> pd.DataFrame:
    """One model's long table (rows per suite, with an LLM agent's token, cost, cache-hit
    and failed-request rows), per-task CSV and failed-grader review."""
    usage = usage_of(job.predictions)
    frames, cases = [], []
    for suite, outcome in sorted(outcomes.items()):
        dataset, digest = outcome_dataset(job, suite, outcome)
        provenance = Provenance(benchmark="waza", dataset=dataset, dataset_sha256=digest,
                                config_hash=job.config_hash)
        rows = metrics.suite_metrics(outcome, job.bootstrap)
        if (usage.get(suite) or {}).get("requests"):
            rows += usage_metric_rows(usage[suite])
        frames.append(result_rows(provenance, job.model, "", rows))
        if outcome.get("baseline_outcome"):  # the A/B arm: its own leaderboard row
            frames.append(result_rows(provenance, f"{job.model} [{recording.BASELINE_ARM}]", "",
                                      metrics.suite_metrics(outcome["baseline_outcome"],
                                                            job.bootstrap)))
        cases += metrics.per_case(suite, outcome)
    table = pd.concat(frames, ignore_index=True)
    write_result_table(job.outputs["table"], table)
    write_csv(job.outputs["per_case"], pd.DataFrame(cases, columns=metrics.PER_CASE_COLUMNS))
    write_text(job.outputs["review"], review(job.model, dict(sorted(outcomes.items()))))
    if job.outputs.get("review_page"):  # the report's page (a direct call may want none)
        write_text(job.outputs["review_page"],
                   review_html(job.model, dict(sorted(outcomes.items()))))
    return table


def outcome_dataset(job: ScoreJob, suite: str, outcome: Mapping) -> tuple[str, str]:
    """The suite's dataset label and sha256. When a smoke run's limit
    (``job.settings["limit"]``) cut the suite's tasks or trigger prompts, the label says
    `` (limited to N items)`` (N the tasks it ran) and the sha256 is the run's own (the
    suite's, with the task ids and trigger prompts it ran), as gating's limited cases file
    has its own: history and ``compare`` then see another dataset, not changed numbers. A
    suite the limit did not cut is the full suite, as in gating."""
    entry = read_json(job.truth["source"])["suites"].get(suite, {})
    dataset, digest = entry.get("dataset", suite), entry.get("sha256", "")
    if not job.settings.get("limit"):
        return dataset, digest
    full = load_suite(Path(job.truth["suites"]) / suite)
    tasks = [str(t.get("test_id", "")) for t in outcome.get("tasks") or []]
    prompts = [str(t.get("prompt", "")) for t in outcome.get("trigger_results") or []]
    if len(tasks) >= len(full.tasks) and len(prompts) >= len(full.trigger_prompts):
        return dataset, digest
    ran = {"suite_sha256": digest, "tasks": sorted(tasks), "trigger_prompts": sorted(prompts)}
    return (f"{dataset} (limited to {len(tasks)} item{'s' if len(tasks) != 1 else ''})",
            sha256_text(json.dumps(ran, sort_keys=True)))


def score(job: ScoreJob) -> pd.DataFrame:
    """Grade every recorded run of ``job``'s model, then write its tables."""
    outcomes = grade(job)
    if job.settings.get("limit"):
        labels = [outcome_dataset(job, s, o)[0] for s, o in outcomes.items()]
        if any(label.endswith((" items)", " item)")) for label in labels):
            say_limited("waza", f"the first {job.settings['limit']} task(s) and trigger "
                        "prompt(s) of each suite")
    if "graded" in job.outputs:
        # the dataset labels go along, for the comparisons job (a smoke run's differ)
        write_json(job.outputs["graded"], {
            "suites": outcomes,
            **({"datasets": {s: outcome_dataset(job, s, o)[0] for s, o in outcomes.items()}}
               if job.settings.get("limit") else {})})
    return tables(job, outcomes)
