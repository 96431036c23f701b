"""Write the inspect_ai logs under tests/interop/data/leaderboard/ with inspect_ai itself.

Not run by the tests (inspect_ai is not a dependency): run it by hand in a venv with
inspect_ai, as tests/support/make_inspect_logs.py is run:

    python -m venv /tmp/inspect && /tmp/inspect/bin/pip install "inspect-ai==0.3.285"
    /tmp/inspect/bin/python tests/support/make_leaderboard_logs.py

One task (``sums``, 60 samples s01..s60, inspect's built-in ``includes`` scorer: "C" when
the target is in the reply) run against ``mockllm/model`` three times with scripted
replies, so every score is known in advance (the tests work the leaderboard out by hand
from the same table):

- ``strong.eval``: right on s01..s42 (42 / 60 = 70 %), one epoch;
- ``weak.eval``: right on s01..s33 (33 / 60 = 55 %), one epoch;
- ``twice.eval``: two epochs, right in both on s01..s40, right in the first epoch only on
  s41, wrong on the rest (per-item shares: 40 + 0.5 = 40.5 / 60 = 67.5 %).

Each reply reports 5 input and 1 output tokens, and a cost of 0.0001 USD (strong), 0.00005
(weak) and 0.0002 (twice), so the leaderboard's token and cost columns have known sums.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import inspect_ai
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import write_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import includes
from inspect_ai.solver import generate

OUT = Path(__file__).resolve().parents[1] / "interop" / "data" / "leaderboard"
ITEMS = [f"s{k:02d}" for k in range(1, 61)]
QUESTIONS = {item: (f"What is {k} plus {k}?", str(2 * k))
             for k, item in enumerate(ITEMS, start=1)}
# model -> (right in every epoch, right in the first epoch only, epochs, cost per reply, file)
RUNS = {"strong": (ITEMS[:42], [], 1, 0.0001, "strong.eval"),
        "weak": (ITEMS[:33], [], 1, 0.00005, "weak.eval"),
        "twice": (ITEMS[:40], ["s41"], 2, 0.0002, "twice.eval")}


def scripted(name: str):
    right, first_only, _, cost, _ = RUNS[name]
    by_question = {q: (item, target) for item, (q, target) in QUESTIONS.items()}
    calls: dict[str, int] = {}

    def output(messages, tools, tool_choice, config):
        question = messages[-1].text
        item, target = by_question[question]
        k = calls.get(question, 0)
        calls[question] = k + 1
        good = item in right or (item in first_only and k == 0)
        out = ModelOutput.from_content("mockllm/model", target if good else "I do not know")
        out.usage = ModelUsage(input_tokens=5, output_tokens=1, total_tokens=6,
                               total_cost=cost)
        return out
    return output


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    samples = [Sample(id=i, input=q, target=t) for i, (q, t) in QUESTIONS.items()]
    for name, (_, _, epochs, _, file) in RUNS.items():
        task = Task(dataset=samples, solver=generate(), name="sums", scorer=[includes()])
        model = get_model("mockllm/model", custom_outputs=scripted(name), memoize=False)
        [log] = eval(task, model=model, epochs=epochs, max_samples=1,
                     log_dir=str(OUT / "_raw"), display="none")
        write_eval_log(log, str(OUT / file), format=file.rsplit(".", 1)[1])
    for raw in (OUT / "_raw").glob("*"):
        raw.unlink()
    (OUT / "_raw").rmdir()
    (OUT / "VERSION.json").write_text(json.dumps(
        {"inspect_ai": inspect_ai.__version__, "python": sys.version.split()[0],
         "written_by": "tests/support/make_leaderboard_logs.py"}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
