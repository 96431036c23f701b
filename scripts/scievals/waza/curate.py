"""Curate: load every configured suite strictly and list its tasks (one line per task).

A suite that does not load stops the workflow here with one line naming the file, the
key path and the allowed keys, before any agent runs.
"""

from __future__ import annotations

from pathlib import Path

from scievals.common.io import read_json, write_json, write_jsonl
from scievals.waza.suites import load_suite


def curate(download_report: str | Path, suites_dir: str | Path, cases_out: str | Path,
           report_out: str | Path) -> list[dict]:
    downloaded = read_json(download_report)["suites"]
    cases, suites = [], {}
    for name, entry in downloaded.items():
        suite = load_suite(Path(suites_dir) / name)
        suites[name] = {"eval_name": suite.name, "skill": suite.skill,
                        "sha256": entry["sha256"], "tasks": len(suite.tasks),
                        "trials_per_task": suite.config["trials_per_task"],
                        "trigger_prompts": len(suite.trigger_prompts),
                        "graders": len(suite.graders), "notes": suite.notes}
        for task in suite.tasks:
            cases.append({"suite": name, "task_id": task.id, "name": task.name,
                          "prompt": task.prompt, "files": [f.path for f in task.files],
                          "graders": [{"name": g.name, "type": g.type}
                                      for g in suite.graders + task.graders]})
    write_jsonl(cases_out, cases)
    write_json(report_out, {"suites": suites})
    return cases


# The job of waza_curate: scievals.common.entry.run_stage imports this module
# for it alone, so the job loads its own stage's code and nothing else.
def stage_curate(smk) -> None:
    """Load every suite strictly and list its tasks."""
    curate(smk.input.source, smk.input.suites, smk.output.cases, smk.output.report)
