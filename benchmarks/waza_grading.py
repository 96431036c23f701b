"""Time grading 10,000 recorded agent runs with every non-LLM waza grader (target < 10 s).

Usage: python benchmarks/waza_grading.py [--n 10000] [--seed 0]

Each run is a seeded variation of a recorded agent session (the event shapes of
data/demo/waza/sessions: tool start/complete pairs, skill invocations, assistant
messages, usage), turned into a grader context by the session digest. Every run
is graded by 14 graders the way ``waza grade`` grades a task's runs
(``runs.build_graders`` once, then ``runs.grade_runs``: each grader over all runs with
``grade_all``, which batches the code assertions of 256 runs per worker round trip, and
the validations assembled per run; the run-by-run time is printed too): code
(4 assertions, in the sandboxed worker), text, keyword, regex, behavior,
action_sequence, skill_invocation, tool_constraint, tool_calls (both forms),
json_schema, file, diff and trigger, on one workspace.
`program` and `script` start one process per run by design (as in waza); their
cost per run is measured separately on a sample and printed, not in the total.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

from scievals.waza import runs
from scievals.waza.graders.base import GraderOptions
from scievals.waza.graders.registry import build
from scievals.waza.session import grader_context
from scievals.waza.suites import GraderSpec

TOOLS = ["view", "bash", "edit", "create", "skill", "grep"]
WORDS = ["the", "function", "returns", "recursion", "file", "error", "deploy", "azure", "loop",
         "list", "pointer", "O(n)", "sorted", "greet", "explain", "2", "files"]
SKILL_MD = """---
name: code-explainer
description: "Explains code step by step. USE FOR: explain this code, walk me through, \
what does this do. DO NOT USE FOR: writing new code."
---
Explain what the code does, its complexity and edge cases.
"""

GRADERS = [
    ("code", {"assertions": ["len(output) > 0", "'file' in output.lower()",
                             "len(errors) == 0", "duration_ms < 30000"]}),
    ("text", {"contains": ["function"], "not_contains": ["traceback"],
              "regex_match": [r"(?i)o\(n\)|recursion"], "regex_not_match": [r"\bTODO\b"]}),
    ("keyword", {"keywords": ["explain", "file"], "must_not_contain": ["exception"]}),
    ("regex", {"must_match": ["return"], "must_not_match": ["panic"]}),
    ("behavior", {"max_tool_calls": 8, "max_tokens": 5000, "max_duration_ms": 300000,
                  "required_tools": ["view"], "forbidden_tools": ["edit"]}),
    ("action_sequence", {"matching_mode": "in_order_match",
                         "expected_actions": ["view", "bash"]}),
    ("skill_invocation", {"required_skills": ["code-explainer"], "mode": "any_order",
                          "allow_extra": False}),
    ("tool_constraint", {"expect_tools": [{"tool": "view", "path_pattern": r"\.py$"}],
                         "reject_tools": [{"tool": "bash", "command_pattern": "rm -rf"}]}),
    ("tool_calls", {"required_tools": ["view"], "max_calls": 6,
                    "expect": [{"tool": "bash", "args": {"command": {"regex": "^python"}}}]}),
    ("tool_calls", {"required": ["view"], "forbidden": ["rm -rf"], "max_calls": 10}),
    ("json_schema", {"schema": {"type": "object", "required": ["answer"]}}),
    ("file", {"must_exist": ["sample.py"], "must_not_exist": ["out.txt"],
              "content_patterns": [{"path": "sample.py", "must_match": ["def greet"]}]}),
    ("diff", {"expected_files": [{"path": "sample.py", "contains": ["+def greet", "-import os"]}]}),
    ("trigger", {"skill_path": "SKILL.md", "mode": "positive"}),
]


def events(rng: random.Random, k: int) -> list[dict]:
    """A session event stream like the recorded one, varied by ``rng``."""
    out: list[dict] = [{"type": "user.message", "data": {"content": f"task {k}"}}]
    for i in range(rng.randint(0, 7)):
        tool = rng.choice(TOOLS)
        args = {"path": rng.choice(["sample.py", "README.md", "src/app.py"]),
                "command": rng.choice(["python sample.py", "ls", "cat sample.py"])}
        if tool == "skill":
            args = {"skill": "code-explainer"}
        call_id = f"call-{k}-{i}"
        out.append({"type": "tool.execution_start",
                    "data": {"toolCallId": call_id, "toolName": tool, "arguments": args}})
        out.append({"type": "tool.execution_complete",
                    "data": {"toolCallId": call_id, "success": rng.random() > 0.1,
                             "result": {"content": "ok"}}})
        if tool == "skill":
            out.append({"type": "skill.invoked",
                        "data": {"name": "code-explainer", "path": "SKILL.md"}})
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 60)))
    if rng.random() < 0.2:
        text = json.dumps({"answer": text})
    out.append({"type": "assistant.message", "data": {"content": text}})
    out.append({"type": "assistant.usage", "data": {"input_tokens": rng.randint(100, 4000),
                                                   "output_tokens": rng.randint(10, 2000)}})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "SKILL.md").write_text(SKILL_MD)
        ws = root / "ws"
        ws.mkdir()
        (ws / "sample.py").write_text("def greet(name):\n    return f'Hello, {name}!'\n")
        prompts = ["explain this code please", "walk me through sample.py",
                   "write a new web server", "what does this do"]
        started = time.perf_counter()
        contexts = [grader_context(events(rng, k), output=None,
                                   duration_ms=rng.randint(500, 60_000),
                                   task={"id": f"t{k}", "inputs": {"prompt": prompts[k % 4]}},
                                   workspace_dir=ws)
                    for k in range(args.n)]
        built = time.perf_counter() - started

        cwd = os.getcwd()
        os.chdir(root)  # trigger's skill_path is CWD-relative, as in waza
        try:
            specs = [GraderSpec(f"{kind}{i}", kind, config)
                     for i, (kind, config) in enumerate(GRADERS)]
            graders = runs.build_graders(specs, GraderOptions())
            assert not any(g.error for g in graders), [g.error for g in graders]
            runs.grade_run(graders[:1], contexts[0])  # start the code worker
            started, cpu = time.perf_counter(), time.process_time()
            graded_runs = runs.grade_runs(graders, contexts)
            graded = time.perf_counter() - started
            graded_cpu = time.process_time() - cpu
            assert not any(error for _, error in graded_runs)
            results = [v for validations, _ in graded_runs for v in validations.values()]
            scored, passed = len(results), sum(v["passed"] for v in results)
            started = time.perf_counter()
            for context in contexts[: args.n // 10]:
                runs.grade_run(graders, context)
            one_by_one = (time.perf_counter() - started) * 10

            sample = contexts[:200]
            program = build("program", {"command": sys.executable,
                                        "args": ["-c", "import sys; sys.stdin.read()"]})
            started = time.perf_counter()
            for context in sample:
                program.grade(context)
            per_program = (time.perf_counter() - started) / len(sample)
        finally:
            os.chdir(cwd)
    print(f"runs: {args.n}, graders per run: {len(GRADERS)}, grader results: {scored} "
          f"({passed} passed)")
    print(f"context building (session digest): {built:.2f} s")
    print(f"grading: {graded:.2f} s total, {graded / args.n * 1e3:.3f} ms per run "
          f"(target < 10 s for 10,000 runs); this process's CPU time {graded_cpu:.2f} s "
          f"(the rest is the code-assertion worker and waiting for a CPU)")
    print(f"grading run by run instead (one code-worker round trip per run, measured on "
          f"{args.n // 10} runs, scaled): {one_by_one:.2f} s")
    print(f"program grader (one process per run): {per_program * 1e3:.1f} ms per run")


if __name__ == "__main__":
    main()
