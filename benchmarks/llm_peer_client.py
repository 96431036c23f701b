"""One client process of ``llm_throughput.py --peers``: N chat requests to a local server
through one framework's own model API, then one JSON line of CPU seconds (import, requests).

    python llm_peer_client.py {scievals,lm-eval,inspect} BASE_URL N [CACHE_DIR]

scievals runs in the project's venv; lm-eval and inspect_ai in a separate one (they are never
project dependencies). Each framework gets the same requests: one user message
"question <i>", temperature 0, up to 16 in flight, no response cache of its own (scievals' is
a fresh folder, so every request is sent).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time


def scievals_client(url: str, n: int, cache_dir: str) -> list[str]:
    import os
    from pathlib import Path

    import openai  # noqa: F401  the SDK the provider imports when its client is made
    from scievals.llm.base import LLMRequest, Message, ModelSpec
    from scievals.llm.runner import run_batch
    from scievals.llm.settings import LLMSettings
    imported = time.process_time()
    os.environ["SCIEVALS_BENCH_FAKE_KEY"] = "fake-benchmark-key"
    spec = ModelSpec(name="bench", provider="openai", model="fake-model", base_url=url,
                     api_key_env="SCIEVALS_BENCH_FAKE_KEY", max_connections=16)
    requests = [LLMRequest(case_id=f"c{i}", messages=[Message(role="user",
                                                              content=f"question {i}")])
                for i in range(n)]
    result = run_batch(spec, requests, LLMSettings(cache_dir=Path(cache_dir)),
                       scope="bench/v1", announce=False)
    return imported, [r.text for r in result.responses]


def lm_eval_client(url: str, n: int) -> list[str]:
    from lm_eval.api.instance import Instance
    from lm_eval.models.api_models import JsonChatStr
    from lm_eval.models.openai_completions import LocalChatCompletion

    imported = time.process_time()
    model = LocalChatCompletion(base_url=url + "/chat/completions", model="fake-model",
                                num_concurrent=16, max_retries=1, tokenizer_backend=None,
                                tokenized_requests=False)
    requests = [Instance(request_type="generate_until", doc={}, idx=i, arguments=(
        JsonChatStr(json.dumps([{"role": "user", "content": f"question {i}"}])),
        {"until": [], "max_gen_toks": 4096, "temperature": 0})) for i in range(n)]
    return imported, model.generate_until(requests, disable_tqdm=True)


def inspect_client(url: str, n: int) -> list[str]:
    from inspect_ai.model import GenerateConfig, get_model

    imported = time.process_time()

    async def generate_all() -> list[str]:
        config = GenerateConfig(max_connections=16, temperature=0)
        async with get_model("openai-api/fake/fake-model", base_url=url, api_key="fake",
                             config=config) as model:
            outputs = await asyncio.gather(*(model.generate(f"question {i}")
                                             for i in range(n)))
        return [output.completion for output in outputs]

    return imported, asyncio.run(generate_all())


def main() -> None:
    started = time.process_time()
    kind, url, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if kind == "scievals":
        imported, texts = scievals_client(url, n, sys.argv[4])
    elif kind == "lm-eval":
        imported, texts = lm_eval_client(url, n)
    else:
        imported, texts = inspect_client(url, n)
    # every request answered with the fake server's echo, in order
    assert texts == [f"reply: question {i}" for i in range(n)], texts[:3]
    print(json.dumps({"import_cpu_s": imported - started,
                      "requests_cpu_s": time.process_time() - imported}))


if __name__ == "__main__":
    main()
