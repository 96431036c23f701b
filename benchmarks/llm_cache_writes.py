"""CPU of writing LLM cache entries: N replies stored one after another in a fresh folder
(the 256 key-prefix folders get made on the way, as in a real cache).

    python benchmarks/llm_cache_writes.py [--entries 2000] [--dir /tmp]

Prints the CPU milliseconds (user + system, this process) per entry. No target: the figure
goes to docs/llm.md#measured-figures.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

from scievals.llm.base import ModelSpec, ProviderReply, Usage
from scievals.llm.cache import ResponseCache


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=2000)
    parser.add_argument("--dir", default=None, help="where the scratch cache goes")
    args = parser.parse_args()
    spec = ModelSpec(name="bench", provider="openai", model="m", base_url="http://x/v1")
    reply = ProviderReply(text="reply: question 1", usage=Usage(tokens_in=3, tokens_out=3),
                          stop_reason="stop", request_id="r")
    material = {"format": 1, "provider": "openai", "scope": "bench/v1",
                "messages": [{"role": "user", "content": "question 1"}]}
    keys = [hashlib.sha256(str(i).encode()).hexdigest() for i in range(args.entries)]
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        cache = ResponseCache(Path(folder))
        started = time.process_time()
        for key in keys:
            cache.put(spec, key, material, reply, 0.1)
        spent = time.process_time() - started
    print(f"{args.entries} entries: {spent / args.entries * 1000:.2f} ms CPU an entry")
    return 0


if __name__ == "__main__":
    sys.exit(main())
