"""Make the lm-evaluation-harness fixtures of tests/interop (run by hand, not by the tests).

Real lm-eval output, not files built from its documentation: lm-eval's own command line
(`lm_eval ... --log_samples --output_path`) writes ``results_<timestamp>.json`` and
``samples_<task>_<timestamp>.jsonl`` for two "models" on one small local task. lm-eval needs
torch, so it runs in a side environment, never as a scievals dependency:

    python3 -m venv /tmp/lmevalvenv && /tmp/lmevalvenv/bin/pip install lm-eval==0.4.13
    /tmp/lmevalvenv/bin/python tests/support/make_lm_eval_logs.py

The models are a scripted LM registered with lm-eval (no download, no Hugging Face hub): it
answers each question with the right answer, except the questions listed in ``wrong=``,
which it answers "nothing". Model ``a`` is wrong on q3; model ``b`` on q2, q3, q5 and q7.
The task is ten questions read from a local JSONL (``dataset_path: json``), scored by
exact_match. Paths inside the output are relative: the script runs in the task's folder.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "interop" / "data" / "lm_eval"
QUESTIONS = [(f"q{i}", f"What is {i} plus {i}?", str(2 * i)) for i in range(10)]
MODELS = {"a": "q3", "b": "q2|q3|q5|q7"}
TASK = """task: tiny_sums
dataset_path: json
dataset_kwargs:
  data_files:
    test: tiny_sums.jsonl
test_split: test
output_type: generate_until
doc_to_text: "Q: {{question}}\\nA:"
doc_to_target: "{{answer}}"
generation_kwargs:
  until: ["\\n"]
  do_sample: false
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
"""


def main() -> None:
    os.environ.update(HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="0")
    from lm_eval import __main__ as cli
    from lm_eval.api.model import LM
    from lm_eval.api.registry import register_model

    answers = {f"Q: {q}\nA:": (qid, a) for qid, q, a in QUESTIONS}

    @register_model("scripted")
    class Scripted(LM):
        def __init__(self, wrong: str = "", **_) -> None:
            super().__init__()
            self.wrong = set(wrong.split("|")) if wrong else set()

        def generate_until(self, requests):
            out = []
            for request in requests:
                qid, answer = answers[request.args[0]]
                out.append("nothing" if qid in self.wrong else answer)
            return out

        def loglikelihood(self, requests):
            raise NotImplementedError

        def loglikelihood_rolling(self, requests):
            raise NotImplementedError

    work = Path(tempfile.mkdtemp(prefix="lm_eval_logs."))
    (work / "tiny_sums.yaml").write_text(TASK)
    with open(work / "tiny_sums.jsonl", "w") as handle:
        for qid, question, answer in QUESTIONS:
            handle.write(json.dumps({"id": qid, "question": question, "answer": answer}) + "\n")
    os.chdir(work)
    shutil.rmtree(OUT, ignore_errors=True)
    for name, wrong in MODELS.items():
        sys.argv = ["lm_eval", "--model", "scripted", "--model_args", f"wrong={wrong}",
                    "--tasks", "tiny_sums", "--include_path", ".", "--output_path",
                    f"out/{name}", "--log_samples", "--seed", "0"]
        cli.cli_evaluate()
        made = [p for p in (work / "out" / name).rglob("*") if p.is_file()]
        target = OUT / name
        target.mkdir(parents=True, exist_ok=True)
        for path in made:
            shutil.copyfile(path, target / path.name)
    import lm_eval
    (OUT / "VERSION.json").write_text(json.dumps(
        {"lm_eval": getattr(lm_eval, "__version__", "?"), "models": MODELS}, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
