"""One prediction-job-like process whose batch meets the cost ceiling (test_llm_ceiling.py).

usage: python llm_ceiling_child.py BASE_URL CACHE_DIR LEDGER CEILING N_REQUESTS [batch]

``batch``: the model goes through its provider's batch API (polled every few ms).

It runs the batch through scievals.common.entry.run, as a workflow job does, so a stop is
that job's one-line error and exit code.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).parent))

from llm_helpers import KEY_VAR, make_requests
from scievals.common import entry
from scievals.llm.base import GenerateParams, ModelSpec
from scievals.llm.batch.settings import BatchSettings
from scievals.llm.runner import run_batch
from scievals.llm.settings import LLMSettings


def main() -> None:
    base_url, cache_dir, ledger, ceiling, n = sys.argv[1:6]
    batch = sys.argv[6:] == ["batch"]
    spec = ModelSpec(name="fake-gpt", provider="openai", model="fake-gpt-2025-01-01",
                     base_url=base_url, api_key_env=KEY_VAR, max_connections=1,
                     params=GenerateParams(max_tokens=10), price_in_per_mtok=1e4,
                     price_out_per_mtok=1e4, batch=batch)
    settings = LLMSettings(cache_dir=Path(cache_dir), max_attempts=2, max_wait_s=0.02,
                           max_cost_usd=float(ceiling), spend_ledger=Path(ledger),
                           batch=BatchSettings(poll_interval_s=0.005, max_poll_interval_s=0.02))
    job = SimpleNamespace(log=[], rule="gating_predict_llm", wildcards={"model": "fake-gpt"},
                          output=[], params=SimpleNamespace())

    def predict(_):
        run_batch(spec, make_requests(int(n)), settings, scope="ceiling/v1", announce=False)
        print("finished")

    entry.run(job, predict)


if __name__ == "__main__":
    main()
