"""A smoke run's article selection at the curate step (issue 29 point 3)."""

from __future__ import annotations

import pytest
from scievals.autogkb import curate
from scievals.common.errors import ScievalsError


def _curate(folder, chosen):
    return curate.curate({"origin": "demo", "articles": []}, folder, folder / "cases.jsonl",
                         folder / "report.json", folder / "vocab.json", chosen)


def test_listed_articles_are_the_only_cases_and_the_label_says_so(curated_demo, tmp_path):
    _, full = curated_demo
    every = [c["case_id"] for c in curate.read_cases(curated_demo[0] / "cases.jsonl")]
    picked = [every[3], every[0]]
    report = _curate(tmp_path, {"limit": None, "ids": picked, "key": "autogkb.articles"})
    cases = curate.read_cases(tmp_path / "cases.jsonl")
    assert [c["case_id"] for c in cases] == [every[0], every[3]]  # the curated order
    assert report["n_cases"] == 2 and report["dataset"] == f"{full['dataset']} (limited to 2 items)"
    assert report["limited"] == {"kept": 2, "of": full["n_cases"], "limit": None, "ids": picked}
    assert report["cases_sha256"] != full["cases_sha256"]  # a different data set, by hash too


def test_a_limit_keeps_the_first_articles(curated_demo, tmp_path):
    report = _curate(tmp_path, {"limit": 1, "ids": None, "key": "autogkb.articles"})
    first = curate.read_cases(curated_demo[0] / "cases.jsonl")[0]["case_id"]
    assert [c["case_id"] for c in curate.read_cases(tmp_path / "cases.jsonl")] == [first]
    assert report["dataset"].endswith("(limited to 1 item)")


def test_an_unknown_article_stops_the_curate_step_in_one_line(tmp_path):
    with pytest.raises(ScievalsError, match=r"autogkb\.articles: unknown id\(s\) 'PMC0'"):
        _curate(tmp_path, {"limit": None, "ids": ["PMC0"], "key": "autogkb.articles"})
    assert not (tmp_path / "cases.jsonl").exists()  # nothing half-written
