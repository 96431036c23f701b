"""Duplicated predictions (issue 19, item 10).

The reference ``score`` keeps its quirk (every copy of a matching prediction counts), but
``one_to_one_score`` gives duplicates nothing, as docs/autogkb.md says, and it is the
metric the leaderboard ranks by. An own file with duplicates gets a run notice at import.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from scievals import registry
from scievals.autogkb import curate, predict, score
from scievals.autogkb.metrics import FIELDS, count_duplicates, evaluate
from scievals.common import notices
from scievals.results.leaderboard import benchmark_table, headline_for

ROW = {
    "Variant/Haplotypes": "rs4149056", "Gene": "SLCO1B1", "Drug(s)": "simvastatin",
    "Phenotype Category": "Toxicity", "Alleles": "CC", "Is/Is Not associated": "Associated with",
    "Direction of effect": "increased", "Phenotype": "Side Effect:myopathy",
    "When treated with/exposed to/when assayed with": "when treated with",
    "Comparison Allele(s) or Genotype(s)": "TT",
}
# Same row, direction flipped: "increased" vs "decreased" share no token, so only the
# direction field (weight 2) is lost: pair score (12 - 2) / 12 = 0.8333 >= 0.7.
FLIPPED = {**ROW, "Direction of effect": "decreased"}


def test_a_copy_wins_no_second_curated_annotation():
    truths = [ROW, FLIPPED]
    once = evaluate([ROW], truths)
    # One prediction, exact match to the first truth: 100 x 1.0 / 2 = 50 both ways.
    assert once.score == pytest.approx(50.0)
    assert once.one_to_one_score == pytest.approx(50.0)
    twice = evaluate([ROW, dict(ROW)], truths)
    # Reference quirk kept: each copy keeps its best pair (1.0): 100 x 2.0 / 2 = 100.
    assert twice.score == pytest.approx(100.0)
    # One-to-one: the copy would take the flipped truth, 100 x (1 + 10/12) / 2 = 91.67;
    # a duplicate gets nothing, so it stays 50.
    assert twice.one_to_one_score == pytest.approx(50.0)
    assert twice.n_one_to_one == 1 and twice.n_duplicates == 1
    # Precision counts every prediction: 1 matched of 2 = 0.5 (duplicates only lower it).
    assert (twice.precision, twice.recall) == (0.5, 0.5)


def test_a_near_duplicate_is_a_prediction_of_its_own():
    # Differing in a scored field, it is a different claim and may take the second truth.
    ev = evaluate([ROW, FLIPPED], [ROW, FLIPPED])
    assert ev.n_duplicates == 0 and ev.one_to_one_score == pytest.approx(100.0)


def test_duplicates_are_what_the_scorer_sees_after_normalising():
    # Case, spacing, ',' and ';' and unscored keys do not make a new annotation.
    variant = {**{k: v.upper() for k, v in ROW.items()}, "Drug(s)": "  simvastatin; ",
               "Notes": "another note"}
    assert count_duplicates([ROW, variant, FLIPPED]) == 1


@pytest.fixture(scope="module")
def curated(curated_demo):
    return curated_demo[0]


def test_tenfold_baseline_keeps_its_one_to_one_score(curated, tmp_path, caplog):
    # The probe: the baseline's predictions, every annotation repeated 10 times, as an own
    # file. The reference score becomes 10 x the baseline's (every copy counts); the
    # one-to-one score, precision aside, must equal the baseline's exactly.
    d = curated
    cfg = {"models": {"autogkb_baseline": {"provider": "baseline"}}}
    base = predict.run(d / "cases.jsonl", d / "vocab.json", "autogkb_baseline", cfg,
                       tmp_path / "base.jsonl", tmp_path / "u.json")
    own = {r["case_id"]: [a for a in r["annotations"] for _ in range(10)] for r in base}
    (tmp_path / "tenfold.json").write_text(json.dumps(own))
    with caplog.at_level("WARNING"):
        predict.import_predictions(tmp_path / "tenfold.json", d / "cases.jsonl", "tenfold",
                                   tmp_path / "tenfold.jsonl")
    n_annotations = sum(len(r["annotations"]) for r in base)
    (line,) = [r.getMessage() for r in caplog.records if "duplicated annotation" in r.getMessage()]
    assert f"{9 * n_annotations} duplicated annotation(s)" in line and "tenfold.json" in line
    prov = score.provenance_for(d / "cases.jsonl", d / "report.json", "cfg")
    boot = {"n_resamples": 50, "seed": 0}
    frames = {}
    for model, path in (("base", "base.jsonl"), ("tenfold", "tenfold.jsonl")):
        score.score_model(d / "cases.jsonl", tmp_path / path, prov, boot, 0.7,
                          tmp_path / f"{model}.csv", tmp_path / f"{model}.pa.csv",
                          tmp_path / f"{model}.md", model)
        frames[model] = pd.read_csv(tmp_path / f"{model}.csv").set_index("metric")["value"]
    base_v, ten_v = frames["base"], frames["tenfold"]
    assert ten_v["score"] == pytest.approx(10 * base_v["score"])
    assert ten_v["one_to_one_score"] == base_v["one_to_one_score"]
    assert ten_v["recall"] == base_v["recall"]
    assert ten_v["precision"] == pytest.approx(base_v["precision"] / 10)
    per_article = pd.read_csv(tmp_path / "tenfold.pa.csv")
    assert per_article["n_duplicates"].sum() == 9 * n_annotations


def test_leaderboard_ranks_autogkb_by_a_metric_duplication_cannot_raise():
    bench = next(b for b in registry.REGISTRY if b.name == "autogkb")
    assert bench.headline_metrics[0] == "one_to_one_score"
    # The probe's numbers: the tenfold file has score 769.3 against the baseline's 76.9,
    # and the same one-to-one score (76.2 once duplicates count once); an honest model
    # with a better one-to-one score (80.0) but a lower reference score ranks first.
    values = {("tenfold", "score"): 769.3, ("tenfold", "one_to_one_score"): 76.2,
              ("honest", "score"): 79.0, ("honest", "one_to_one_score"): 80.0}
    frame = pd.DataFrame([
        {"model": m, "condition": "user", "metric": metric, "value": v, "ci_low": v,
         "ci_high": v, "n": 17} for (m, metric), v in values.items()])
    table = benchmark_table(frame, headline_for("autogkb", frame))
    assert table["model"].tolist() == ["honest", "tenfold"]
    assert list(table.columns[1:3]) == ["one_to_one_score", "score"]  # both shown


def test_import_without_duplicates_records_no_notice(curated, tmp_path, notice_folder):
    d = curated
    case = curate.read_cases(d / "cases.jsonl")[0]
    own = {case["case_id"]: [{f: t.get(f) for f in FIELDS} for t in case["truth"]]}
    (tmp_path / "mine.json").write_text(json.dumps(own))
    predict.import_predictions(tmp_path / "mine.json", d / "cases.jsonl", "mine",
                               tmp_path / "mine.jsonl")
    assert not list(notice_folder.glob("*.jsonl"))


@pytest.fixture
def notice_folder(tmp_path):
    folder = tmp_path / "notices"
    output = tmp_path / "out"
    output.touch()
    notices.start_job("autogkb_import", {"model": "mine"}, [str(output)], folder)
    yield folder
    notices.end_job()
