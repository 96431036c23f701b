"""Send one job through a provider's batch API in a separate process (the test kills it
while it waits).

usage: python llm_batch_api_child.py PROVIDER BASE_URL CACHE_DIR N_REQUESTS LOG_FILE
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from llm_helpers import KEY_VAR, make_requests
from scievals.llm.base import ModelSpec
from scievals.llm.runner import run_batch
from scievals.llm.settings import LLMSettings


def main() -> None:
    provider, base_url, cache_dir, n, log_file = sys.argv[1:6]
    logging.basicConfig(filename=log_file, level=logging.DEBUG)
    model = {"openai": "fake-gpt-2025-01-01", "anthropic": "fake-claude-2025-01-01"}[provider]
    name = {"openai": "fake-gpt", "anthropic": "fake-claude"}[provider]
    spec = ModelSpec(name=name, provider=provider, model=model, base_url=base_url,
                     api_key_env=KEY_VAR, batch=True)
    settings = LLMSettings(cache_dir=Path(cache_dir),
                           batch={"poll_interval_s": 0.01, "max_poll_interval_s": 0.05})
    run_batch(spec, make_requests(int(n)), settings, scope="t/v1")


if __name__ == "__main__":
    main()
