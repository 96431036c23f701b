"""``gating validate`` streams its file (issue 30, item 16).

Validating a 100,000-line prediction file took 4.2 GB: every line's JSON, then every parsed
record, were held in lists. Now one record is in memory at a time: the peak of Python
allocations (tracemalloc) while validating a file stays below a tenth of the file's size.
"""

from __future__ import annotations

import json
import tracemalloc

from scievals.cli import main
from scievals.gating.paths import OMIP_VERIFIED_DIR


def _tree(depth: int, width: int, name: str) -> dict:
    if depth == 0:
        return {"name": name}
    return {"name": name, "markers": ["CD3", "CD4", "CD8"],
            "children": [_tree(depth - 1, width, f"{name}/{i} CD{i}+ cells")
                         for i in range(width)]}


def test_validate_memory_does_not_grow_with_the_file(tmp_path, capsys):
    from scievals.gating.curate import build_cases

    cases = tmp_path / "cases.jsonl"
    build_cases([OMIP_VERIFIED_DIR], None, cases, tmp_path / "curation_report.json")
    ids = [json.loads(line)["test_case_id"] for line in cases.read_text().splitlines()]
    # 1 + 4 + 16 + 64 = 85 gates a line, about 5 KB; a distinct (case, sample) per line
    tree = _tree(3, 4, "All Events")
    lines = [json.dumps({"case_id": ids[k % len(ids)], "sample_index": k // len(ids),
                         "hierarchy": tree}) for k in range(1500)]
    big = tmp_path / "big.jsonl"
    big.write_text("\n".join(lines) + "\n")
    size = big.stat().st_size
    assert size > 5_000_000
    small = tmp_path / "small.jsonl"
    small.write_text(lines[0] + "\n")
    # once on a one-line file first: the modules it imports are not the file's memory
    assert main(["gating", "validate", str(small), "--cases", str(cases)]) == 0
    capsys.readouterr()
    tracemalloc.start()
    try:
        assert main(["gating", "validate", str(big), "--cases", str(cases)]) == 0
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert capsys.readouterr().out.strip() == f"{big}: ok, 1500 prediction(s)"
    # held whole, the parsed lines alone are several times the file; streamed, a few lines
    assert peak < size / 10, (peak, size)


def test_a_duplicate_is_still_named_after_streaming(tmp_path, capsys):
    from scievals.gating.curate import build_cases

    cases = tmp_path / "cases.jsonl"
    build_cases([OMIP_VERIFIED_DIR], None, cases, tmp_path / "curation_report.json")
    case_id = json.loads(cases.read_text().splitlines()[0])["test_case_id"]
    line = json.dumps({"case_id": case_id, "hierarchy": _tree(2, 2, "All Events")})
    mine = tmp_path / "mine.jsonl"
    mine.write_text(f"{line}\n\n{line}\n")
    assert main(["gating", "validate", str(mine), "--cases", str(cases)]) == 1
    assert "on lines 1 and 3" in capsys.readouterr().out
