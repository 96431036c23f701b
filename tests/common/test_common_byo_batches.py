"""byo_batches: the user's own files split into a fixed number of score jobs."""

from __future__ import annotations

import pytest
from scievals.common.workflow import byo_batches

NAMES = [f"byo_{i:03d}" for i in range(100)]


def test_crc32_check_value_fixes_the_batch():
    # CRC-32's published check value: crc32(b"123456789") = 0xCBF43926 = 3421780262.
    # 3421780262 = 8 * 427722532 + 6, so with 8 jobs it is batch "6";
    # 3421780262 = 10 * 342178026 + 2: with 10 jobs batch "2" (keys 0-9 take one digit).
    assert byo_batches(["123456789"], 8) == {"6": ["123456789"]}
    assert byo_batches(["123456789"], 10) == {"2": ["123456789"]}
    # 3421780262 = 16 * 213861266 + 6 -> "06" (keys 00-15 take two digits)
    assert byo_batches(["123456789"], 16) == {"06": ["123456789"]}


@pytest.mark.parametrize("jobs", [1, 2, 8, 16, 100])
def test_every_file_in_exactly_one_batch_and_at_most_jobs_batches(jobs):
    batches = byo_batches(NAMES, jobs)
    assert len(batches) <= jobs
    flat = [name for models in batches.values() for name in models]
    assert sorted(flat) == NAMES  # each name once
    for models in batches.values():
        assert models == sorted(models)  # the caller's order is kept
    assert list(batches) == sorted(batches)
    assert len({len(key) for key in batches}) == 1  # zero-padded: rule names sort as numbers


def test_adding_or_removing_a_file_moves_no_other_file():
    before = byo_batches(NAMES, 8)
    after = byo_batches([*NAMES, "a_new_model"], 8)
    changed = [key for key in after if after[key] != before.get(key)]
    assert len(changed) == 1 and "a_new_model" in after[changed[0]]
    assert after[changed[0]] == [*before[changed[0]], "a_new_model"]  # appended: caller's order
    removed = byo_batches(NAMES[1:], 8)
    assert [k for k in before if before[k] != removed.get(k, [])] == [
        k for k in before if "byo_000" in before[k]]


def test_one_job_is_one_batch_and_no_files_no_batch():
    assert byo_batches(NAMES, 1) == {"0": NAMES}
    assert byo_batches([], 8) == {}


def test_100_files_spread_over_8_jobs():
    sizes = sorted(len(m) for m in byo_batches(NAMES, 8).values())
    # a checksum spreads names evenly: 8 batches of 12.5 on average, none empty or huge
    assert len(sizes) == 8 and sizes[0] >= 6 and sizes[-1] <= 20, sizes


def test_batches_double_past_100_files_each():
    # 801 files in 8 jobs would be 100.1 a batch: 16 batches; 1,601 (over 16 x 100): 32;
    # 10,000 (over 64 x 100 = 6,400): 128 batches, keys 000-127
    names = [f"own_{i:05d}" for i in range(10_000)]
    assert len(byo_batches(names[:800], 8)) == 8
    assert len(byo_batches(names[:801], 8)) == 16
    assert len(byo_batches(names[:1601], 8)) == 32
    batches = byo_batches(names, 8)
    assert len(batches) == 128 and min(batches) == "000" and max(batches) == "127"
    assert max(len(m) for m in batches.values()) < 2 * 100  # a checksum spreads them evenly
    # a file keeps its batch as long as the count does: crc32 mod 16 refines crc32 mod 8
    small, large = byo_batches(names[:800], 8), byo_batches(names[:801], 8)
    for key, models in large.items():
        assert set(models) - {names[800]} <= set(small[str(int(key) % 8)])
