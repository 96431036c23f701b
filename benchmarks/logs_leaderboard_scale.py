"""CPU time and peak memory of ``python -m scievals leaderboard`` on three logs of one task.

Run from the repository root:

    PYTHONPATH=scripts python benchmarks/logs_leaderboard_scale.py [--items 1000 10000]

For each size it writes, in a temporary folder, three inspect_ai ``.json`` logs of that many
items (each sample a copy of a real inspect_ai 0.3.285 sample from
tests/interop/data/inspect/b.json with its id and ``includes`` score changed; pass rates
about 70 %, 60 % and 55 %), then runs the command in a fresh process, once printing the
Markdown tables and once also writing the HTML page (``--html``: every item's texts). It
prints the CPU seconds (user + system, less sensitive to the shared machine's load than
wall-clock) and the peak resident memory of that process.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parents[1] / "tests/interop/data/inspect/b.json"
RATES = {"model-a": 0.70, "model-b": 0.60, "model-c": 0.55}


def write_log(path: Path, items: int, model: str, rate: float) -> None:
    log = json.loads(TEMPLATE.read_text())
    template = log["samples"][0]
    samples = []
    for i in range(items):
        sample = copy.deepcopy(template)
        sample["id"], sample["epoch"] = f"s{i}", 1
        # a fixed pattern: item i passes when its hashed position falls under the rate
        sample["scores"] = {"includes": {"value": "C" if (i * 7919 % 1000) / 1000 < rate
                                         else "I"}}
        samples.append(sample)
    log["samples"] = samples
    log["eval"]["model"] = model
    path.write_text(json.dumps(log))


def measure(logs: list[Path], html: Path | None) -> tuple[float, float]:
    """(CPU seconds, peak MB) of one leaderboard command in its own process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    command = [sys.executable, "-m", "scievals", "leaderboard", *map(str, logs)]
    if html is not None:
        command += ["--html", str(html)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, after.ru_maxrss / 1024  # ru_maxrss: KB on Linux (largest child so far)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, nargs="+", default=[1000, 10000])
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print("items per log, logs, what, CPU s, peak MB (the largest process so far), html MB")
    for items in sorted(args.items):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            logs = []
            for model, rate in RATES.items():
                logs.append(folder / f"{model}.json")
                write_log(logs[-1], items, model, rate)
            size = sum(p.stat().st_size for p in logs) / 1e6
            cpu, peak = measure(logs, None)
            print(f"{items}, 3 ({size:.1f} MB), tables, {cpu:.2f}, {peak:.0f}, -")
            page = folder / "board.html"
            cpu, peak = measure(logs, page)
            print(f"{items}, 3 ({size:.1f} MB), tables + html, {cpu:.2f}, {peak:.0f}, "
                  f"{page.stat().st_size / 1e6:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
