"""Speed of ``import`` (and of ``compare`` on two imported logs) at 1,000 items.

Run from the repository root:

    PYTHONPATH=scripts python benchmarks/interop_scale.py [--items 1000] [--repeats 3]

It writes, in a temporary folder, logs of ``--items`` items in each format ``import`` reads:
an inspect_ai ``.json`` log and ``.eval`` zip (zstd entries, as inspect_ai writes them; each
sample a copy of a real inspect_ai 0.3.285 sample from tests/interop/data/inspect/b.json
with its id changed), an lm-eval results + samples pair and an Every Eval Ever record with
its instance rows (the shapes of tests/interop/test_interop_import.py). It times
``read_log`` + ``keep`` (the work of ``python -m scievals import``) per format, and
``compare_logs`` on two such inspect logs. CPU seconds (less sensitive to the shared
machine's load than wall-clock); the median of ``--repeats``.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import tempfile
import time
import zipfile
from pathlib import Path

from scievals.interop.importing import keep, read_log
from scievals.interop.paired_logs import compare_logs

TEMPLATE = Path(__file__).resolve().parents[1] / "tests/interop/data/inspect/b.json"


def inspect_logs(folder: Path, items: int, model: str) -> tuple[Path, Path]:
    log = json.loads(TEMPLATE.read_text())
    template = log["samples"][0]
    samples = []
    for i in range(items):
        sample = copy.deepcopy(template)
        sample["id"], sample["epoch"] = f"s{i}", 1
        sample["scores"]["includes"]["value"] = "C" if (i * 7 + len(model)) % 3 else "I"
        samples.append(sample)
    log["samples"] = samples
    log["eval"]["model"] = model
    plain = folder / f"{model}.json"
    plain.write_text(json.dumps(log))
    import zstandard  # the interop extra: the .eval entries are zstd, as inspect writes them

    header = {k: v for k, v in log.items() if k != "samples"}
    zipped = folder / f"{model}.eval"
    with zipfile.ZipFile(zipped, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, data in [("header.json", header),
                           *((f"samples/{s['id']}_epoch_1.json", s) for s in samples)]:
            raw = json.dumps(data).encode()
            info = zipfile.ZipInfo(name)
            archive.writestr(info, raw)  # stored first, then rewritten below as zstd
    _recompress_zstd(zipped, zstandard)
    return plain, zipped


def _recompress_zstd(path: Path, zstandard) -> None:
    """Rewrite a stored zip with zstd-compressed entries (method 93), as inspect_ai does."""
    import struct
    import zlib

    with zipfile.ZipFile(path) as archive:
        entries = [(info.filename, archive.read(info)) for info in archive.infolist()]
    out, central, offset = bytearray(), bytearray(), 0
    for name, raw in entries:
        packed = zstandard.ZstdCompressor().compress(raw)
        crc, encoded = zlib.crc32(raw), name.encode()
        local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 63, 0, 93, 0, 0, crc, len(packed),
                            len(raw), len(encoded), 0)
        central += struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 63, 63, 0, 93, 0, 0, crc,
                               len(packed), len(raw), len(encoded), 0, 0, 0, 0, 0,
                               offset) + encoded
        out += local + encoded + packed
        offset += len(local) + len(encoded) + len(packed)
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(entries), len(entries),
                      len(central), offset, 0)
    path.write_bytes(bytes(out + central + end))


def lm_eval_pair(folder: Path, items: int) -> Path:
    stamp = "2026-11-20T10-00-00.000001"
    results = {"results": {"arc": {"acc,none": 0.5}}, "n-samples": {"arc": {}},
               "higher_is_better": {"arc": {"acc": True}}, "model_name": "org/m",
               "lm_eval_version": "0.4.9"}
    path = folder / f"results_{stamp}.json"
    path.write_text(json.dumps(results))
    lines = (json.dumps({"doc_id": d, "doc": {"q": "x" * 200}, "target": "A", "filter": "none",
                         "metrics": ["acc"], "acc": float(d % 2)}) for d in range(items))
    (folder / f"samples_arc_{stamp}.jsonl").write_text("\n".join(lines) + "\n")
    return path


def eee_record(folder: Path, items: int) -> Path:
    uid = "0b3f3b1e-1111-4a2b-8c3d-000000000001"
    record = {
        "schema_version": "0.3.0", "evaluation_id": "demo/x/1",
        "retrieved_timestamp": "1795000000",
        "source_metadata": {"source_type": "evaluation_run", "source_organization_name": "lab",
                            "evaluator_relationship": "third_party"},
        "model_info": {"name": "x", "id": "dev/x", "additional_details": {
            "deployment_type": "unknown", "model_availability": "unknown"}},
        "eval_library": {"name": "scievals", "version": "0.1.0"},
        "evaluation_results": [{
            "evaluation_name": "gating", "evaluation_result_id": "gating/f1",
            "source_data": {"dataset_name": "demo", "source_type": "other"},
            "metric_config": {"lower_is_better": False, "metric_id": "f1", "min_score": 0,
                              "max_score": 1},
            "score_details": {"score": 0.5}}]}
    path = folder / f"{uid}.json"
    path.write_text(json.dumps(record))
    rows = (json.dumps({"schema_version": "0.3.0", "evaluation_id": "demo/x/1",
                        "model_id": "dev/x", "evaluation_name": "gating",
                        "evaluation_result_id": "gating/f1", "sample_id": f"c{i}",
                        "interaction_type": "single_turn",
                        "input": {"raw": "x" * 200, "reference": ["t"]},
                        "output": {"raw": ["y" * 200]}, "answer_attribution": [],
                        "evaluation": {"score": (i % 10) / 10, "is_correct": i % 2 == 0}})
            for i in range(items))
    (folder / f"{uid}_samples.jsonl").write_text("\n".join(rows) + "\n")
    return path


def _sub(folder: Path, name: str) -> Path:
    (folder / name).mkdir()
    return folder / name


def cpu(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        plain_a, zipped_a = inspect_logs(folder, args.items, "model-a")
        plain_b, _ = inspect_logs(folder, args.items, "model-b")
        logs = {"inspect_ai .json": plain_a, "inspect_ai .eval (zstd)": zipped_a,
                "lm-eval results + samples": lm_eval_pair(_sub(folder, "lm"), args.items),
                "Every Eval Ever record + instance rows": eee_record(_sub(folder, "eee"),
                                                                     args.items)}
        print(f"{args.items} items, CPU seconds (median of {args.repeats})")
        for name, path in logs.items():
            seconds = cpu(lambda p=path: keep(read_log(p), folder / "kept"), args.repeats)
            beside = [f for f in path.parent.glob("*samples*.jsonl")] if path.suffix == ".json" \
                and "inspect" not in name else []
            size = sum(f.stat().st_size for f in [path, *beside]) / 1e6  # the files it reads
            print(f"  import {name:40s} {seconds:7.3f} s  {1e3 * seconds / args.items:6.3f} "
                  f"ms/item  ({size:.1f} MB)")
        seconds = cpu(lambda: compare_logs([str(plain_a), str(plain_b)]), args.repeats)
        print(f"  compare two inspect_ai .json logs (3 metrics)  {seconds:7.3f} s  "
              f"{1e3 * seconds / args.items:6.3f} ms/item")


if __name__ == "__main__":
    main()
