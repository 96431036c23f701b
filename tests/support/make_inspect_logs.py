"""Write the inspect_ai logs under tests/interop/data/inspect/ with inspect_ai itself.

Not run by the tests (inspect_ai is not a dependency, see docs/importing-logs.md): run it by hand
in a venv with inspect_ai to regenerate the committed logs, which are inspect's own output:

    python -m venv /tmp/inspect && /tmp/inspect/bin/pip install "inspect-ai==0.3.285"
    /tmp/inspect/bin/python tests/support/make_inspect_logs.py

One task (``capitals``, 10 samples q01..q10, three scorers) run against ``mockllm/model``
with a scripted reply per question, so every score is known in advance (ANSWERS below and
the tests' expectations are written from the same table):

- ``includes``: inspect's built-in scorer, "C" when the target is in the reply, else "I";
- ``graded`` (letters): "C" exact, "P" when the reply starts with the target's first letter,
  else "I";
- ``closeness`` (a number in [0, 1], metrics mean and ci): 1 - (edit distance share).

Model ``a``: 2 epochs, the same reply both times. Model ``b``: 2 epochs, and on q03 the
first call for the question is right and the second wrong. Model ``c``: 1 epoch, q01..q08
only. ``a`` is written as ``.eval`` and ``.json`` (the same log in both formats), ``b`` as
``.json``, ``c`` as ``.eval``. ``inspect_values.json`` holds inspect's own reading of every
file (``read_eval_log`` + ``value_to_float`` per sample, epoch and scorer), the reference the
tests check scievals' reader against.
"""

from __future__ import annotations

import difflib
import json
import sys
from pathlib import Path

import inspect_ai
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import (
    Score,
    Target,
    accuracy,
    ci,
    includes,
    mean,
    scorer,
    stderr,
    value_to_float,
)
from inspect_ai.solver import TaskState, generate

OUT = Path(__file__).resolve().parents[1] / "interop" / "data" / "inspect"
QUESTIONS = {  # id -> (question, target)
    "q01": ("Capital of France?", "Paris"), "q02": ("Capital of Italy?", "Rome"),
    "q03": ("Capital of Spain?", "Madrid"), "q04": ("Capital of Peru?", "Lima"),
    "q05": ("Capital of Chile?", "Santiago"), "q06": ("Capital of Kenya?", "Nairobi"),
    "q07": ("Capital of Japan?", "Tokyo"), "q08": ("Capital of Egypt?", "Cairo"),
    "q09": ("Capital of Norway?", "Oslo"), "q10": ("Capital of Ghana?", "Accra"),
}
# model -> id -> replies, one per call for that question (the last one repeats)
ANSWERS = {
    "a": {"q01": ["Paris"], "q02": ["Rome"], "q03": ["Madrid"], "q04": ["Lima"],
          "q05": ["Santiago"], "q06": ["Nairobi"], "q07": ["Tokyo"], "q08": ["Cairo"],
          "q09": ["Oslo"], "q10": ["Akra"]},
    "b": {"q01": ["Paris"], "q02": ["Roma"], "q03": ["Madrid", "Seville"], "q04": ["Lima"],
          "q05": ["Valparaiso"], "q06": ["Mombasa"], "q07": ["Osaka"], "q08": ["Cairo"],
          "q09": ["Bergen"], "q10": ["Accra"]},
    "c": {"q01": ["Paris"], "q02": ["Rome"], "q03": ["Barcelona"], "q04": ["Lima"],
          "q05": ["Santiago"], "q06": ["Nairobi"], "q07": ["Kyoto"], "q08": ["Cairo"]},
}
# model -> (epochs, sample ids (None: all), formats written)
RUNS = {"a": (2, None, ("eval", "json")), "b": (2, None, ("json",)),
        "c": (1, [f"q0{i}" for i in range(1, 9)], ("eval",))}


@scorer(metrics=[accuracy(), stderr()])
def graded():
    async def score(state: TaskState, target: Target) -> Score:
        reply, want = state.output.completion.strip(), target.text
        value = "C" if reply == want else ("P" if reply[:1] == want[:1] else "I")
        return Score(value=value, answer=reply)
    return score


@scorer(metrics=[mean(), ci()])
def closeness():
    async def score(state: TaskState, target: Target) -> Score:
        reply = state.output.completion.strip()
        ratio = difflib.SequenceMatcher(None, reply, target.text).ratio()
        return Score(value=round(ratio, 6), answer=reply)
    return score


def scripted(name: str):
    """mockllm outputs: the reply to a question is its next scripted answer."""
    calls: dict[str, int] = {}
    by_question = {q: ANSWERS[name][i] for i, (q, _) in QUESTIONS.items()
                   if i in ANSWERS[name]}

    def output(messages, tools, tool_choice, config):
        question = messages[-1].text
        k = calls.get(question, 0)
        calls[question] = k + 1
        replies = by_question[question]
        out = ModelOutput.from_content("mockllm/model", replies[min(k, len(replies) - 1)])
        # usage given, so mockllm does not count tokens with tiktoken (a download)
        out.usage = ModelUsage(input_tokens=len(question.split()), output_tokens=1,
                               total_tokens=len(question.split()) + 1)
        return out
    return output


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    samples = [Sample(id=i, input=q, target=t) for i, (q, t) in QUESTIONS.items()]
    for name, (epochs, ids, formats) in RUNS.items():
        task = Task(dataset=samples, solver=generate(), name="capitals",
                    scorer=[includes(), graded(), closeness()])
        model = get_model("mockllm/model", custom_outputs=scripted(name), memoize=False)
        [log] = eval(task, model=model, epochs=epochs, sample_id=ids, max_samples=1,
                     log_dir=str(OUT / "_raw"), display="none")
        for fmt in formats:
            write_eval_log(log, str(OUT / f"{name}.{fmt}"), format=fmt)
    for raw in (OUT / "_raw").glob("*"):
        raw.unlink()
    (OUT / "_raw").rmdir()
    # inspect's own reading of each file: read_eval_log + value_to_float, per (id, epoch,
    # scorer), the reference tests/interop/ checks scievals' reader against
    to_float = value_to_float()
    values = {}
    for path in sorted(OUT.glob("*.eval")) + sorted(OUT.glob("*.json")):
        if path.name.endswith("values.json") or path.name == "VERSION.json":
            continue
        log = read_eval_log(str(path))
        values[path.name] = sorted([str(s.id), s.epoch, name, to_float(score.value)]
                                   for s in log.samples for name, score in s.scores.items())
    (OUT / "inspect_values.json").write_text("{\n" + ",\n".join(
        f"{json.dumps(name)}: [\n" + ",\n".join(json.dumps(row) for row in rows) + "]"
        for name, rows in values.items()) + "\n}\n")  # one row a line
    (OUT / "VERSION.json").write_text(json.dumps(
        {"inspect_ai": inspect_ai.__version__, "python": sys.version.split()[0],
         "written_by": "tests/support/make_inspect_logs.py"}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
