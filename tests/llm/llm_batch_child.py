"""Run one batch against a fake server in a separate process (the resume test kills it).

usage: python llm_batch_child.py BASE_URL CACHE_DIR N_REQUESTS LOG_FILE
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
    base_url, cache_dir, n, log_file = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    logging.basicConfig(filename=log_file, level=logging.DEBUG)
    spec = ModelSpec(
        name="fake-gpt",
        provider="openai",
        model="fake-gpt-2025-01-01",
        base_url=base_url,
        api_key_env=KEY_VAR,
        max_connections=2,
    )
    settings = LLMSettings(cache_dir=Path(cache_dir), max_attempts=2, max_wait_s=0.02)
    run_batch(spec, make_requests(n), settings, scope="resume/v1")
    print("finished")


if __name__ == "__main__":
    main()
