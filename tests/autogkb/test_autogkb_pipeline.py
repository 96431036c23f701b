"""Curate -> predict (baseline, mock LLM, bring your own) -> score, without Snakemake."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from scievals.autogkb import curate, predict, score
from scievals.autogkb.baseline import extract
from scievals.autogkb.data import dataset_label, load_articles
from scievals.autogkb.metrics import FIELDS
from scievals.common.errors import ScievalsError

BOOT = {"n_resamples": 200, "seed": 0}


@pytest.fixture(scope="module")
def curated(curated_demo):
    return curated_demo


def test_curation_of_the_embedded_subset(curated):
    d, report = curated
    # README of the subset: 17 of the 20 articles have phenotype rows, 106 rows in all.
    assert report["n_cases"] == 17 and report["n_annotations"] == 106
    assert report["dataset"] == "autogkb-demo-evidence-not-fulltext"
    assert {e["pmcid"] for e in report["excluded"]} == {"PMC5508045", "PMC4706412",
                                                         "PMC10786722"}
    cases = curate.read_cases(d / "cases.jsonl")
    case = next(c for c in cases if c["case_id"] == "PMC10399933")
    assert case["text_mode"] == "evidence" and case["pmid"] == "37490620"
    assert "fluvastatin" in case["text"]
    # The vocabulary comes only from articles outside the test set (drug/FA-only ones).
    vocab = json.loads((d / "vocab.json").read_text())
    test_drugs = {dr.strip().lower() for c in cases for t in c["truth"]
                  for dr in (t["Drug(s)"] or "").split(",")}
    assert set(vocab["drugs"]) == {"warfarin"}
    assert "warfarin" not in test_drugs


def test_evidence_mode_is_never_labelled_fulltext():
    assert dataset_label("demo", "evidence").endswith("evidence-not-fulltext")
    assert "fulltext" in dataset_label("clinpgx", "fulltext")
    articles = {"PMC1": {"pmid": "1", "var_pheno_ann": [{"Gene": "X"}]}}
    cases, excluded = curate.build_cases(articles, "fulltext", {})
    assert cases == [] and excluded == [{"pmcid": "PMC1", "reason": "no full text fetched"}]


def test_baseline_reads_a_curated_sentence():
    sentence = ("Genotypes CC + CT of rs4149056 are associated with increased risk of myopathy "
                "when treated with simvastatin as compared to genotype TT.")
    (annotation,) = extract(sentence, vocabulary=set())
    assert annotation["Variant/Haplotypes"] == "rs4149056"
    assert annotation["Drug(s)"] == "simvastatin"  # the -statin stem, no vocabulary needed
    assert annotation["Alleles"] == "CC + CT"
    assert annotation["Comparison Allele(s) or Genotype(s)"] == "TT"
    assert annotation["Direction of effect"] == "increased"
    assert annotation["Is/Is Not associated"] == "Associated with"
    assert annotation["Phenotype"] == "Side Effect:myopathy"
    hla = extract("HLA-B*15:02 is not associated with risk of rash.", set())[0]
    assert hla["Variant/Haplotypes"] == "HLA-B*15:02" and hla["Gene"] == "HLA-B"
    assert hla["Is/Is Not associated"] == "Not associated with"


def test_baseline_scores_and_review(curated, tmp_path):
    d, _ = curated
    cfg = {"models": {"autogkb_baseline": {"provider": "baseline"}}}
    records = predict.run(d / "cases.jsonl", d / "vocab.json", "autogkb_baseline", cfg,
                          tmp_path / "p.jsonl", tmp_path / "u.json")
    assert len(records) == 17 and all(r["parse_status"] == "ok" for r in records)
    prov = score.provenance_for(d / "cases.jsonl", d / "report.json", "cfg")
    per_article = score.score_model(d / "cases.jsonl", tmp_path / "p.jsonl", prov, BOOT, 0.7,
                                    tmp_path / "s.csv", tmp_path / "pa.csv", tmp_path / "r.md",
                                    "autogkb_baseline", tmp_path / "u.json")
    table = pd.read_csv(tmp_path / "s.csv")
    value = table.set_index("metric")["value"]
    # The table's headline is the mean of the per-article reference scores.
    assert value["score"] == pytest.approx(per_article["score"].mean())
    assert value["one_to_one_score"] <= 100 and 0 <= value["f1"] <= 1
    assert set(table["dataset"]) == {"autogkb-demo-evidence-not-fulltext"}
    assert (table.loc[table["metric"] == "score", "n"] == 17).all()
    review = (tmp_path / "r.md").read_text()
    assert review.count("\n## PMC") == 17 and "### Missed: curated" in review


def test_perfect_byo_file_scores_100_and_bad_files_fail(curated, tmp_path):
    d, _ = curated
    articles = load_articles()
    cases = curate.read_cases(d / "cases.jsonl")
    user = {c["case_id"]: [{f: a.get(f) for f in FIELDS} for a in articles[c["case_id"]]
                           ["var_pheno_ann"]] for c in cases}
    del user[cases[1]["case_id"]]  # one article left out: scored 0 as missing
    # One unusable entry stops the import in one line naming the article (issue 19 item 13;
    # it used to be a parse failure scored 0).
    (tmp_path / "broken.json").write_text(json.dumps({**user, cases[0]["case_id"]: {"not": "a list"}}))
    with pytest.raises(ScievalsError, match=f"broken.json: {cases[0]['case_id']}: reply is a JSON dict"):
        predict.import_predictions(tmp_path / "broken.json", d / "cases.jsonl", "mine",
                                   tmp_path / "broken.jsonl")
    assert not (tmp_path / "broken.jsonl").exists()
    (tmp_path / "mine.json").write_text(json.dumps(user))
    predict.import_predictions(tmp_path / "mine.json", d / "cases.jsonl", "mine",
                               tmp_path / "mine.jsonl")
    prov = score.provenance_for(d / "cases.jsonl", d / "report.json", "cfg")
    per_article = score.score_model(d / "cases.jsonl", tmp_path / "mine.jsonl", prov, BOOT, 0.7,
                                    tmp_path / "s.csv", tmp_path / "pa.csv", tmp_path / "r.md",
                                    "mine")
    by_id = per_article.set_index("case_id")
    assert by_id.loc[cases[1]["case_id"], "parse_status"] == "missing"
    others = by_id.drop(index=[cases[1]["case_id"]])
    assert others["score"].tolist() == pytest.approx([100.0] * 16)
    table = pd.read_csv(tmp_path / "s.csv").set_index("metric")["value"]
    # 16 perfect articles and 1 zero: (16 x 100 + 1 x 0) / 17
    assert table["score"] == pytest.approx(1600 / 17)
    assert table["parse_success_rate"] == pytest.approx(16 / 17)
    (tmp_path / "bad.json").write_text(json.dumps({"PMC0": []}))
    with pytest.raises(ScievalsError, match="unknown PMCID"):
        predict.import_predictions(tmp_path / "bad.json", d / "cases.jsonl", "bad",
                                   tmp_path / "bad.jsonl")
    (tmp_path / "list.json").write_text("[]")
    with pytest.raises(ScievalsError, match="expected a JSON object PMCID"):
        predict.import_predictions(tmp_path / "list.json", d / "cases.jsonl", "bad",
                                   tmp_path / "bad.jsonl")


def test_mock_llm_replies_are_parsed_and_failures_noted(curated, tmp_path):
    d, _ = curated
    cases = curate.read_cases(d / "cases.jsonl")
    good = json.dumps([{f: a.get(f) for f in FIELDS} for a in cases[0]["truth"]])
    cfg = {"models": {"mock": {"provider": "mock", "responses": {
        cases[0]["case_id"]: good, "*": "Sorry, I cannot help."}}},
        "llm": {"cache_mode": "off"}}
    records = predict.run(d / "cases.jsonl", d / "vocab.json", "mock", cfg,
                          tmp_path / "p.jsonl", tmp_path / "u.json")
    by_id = {r["case_id"]: r for r in records}
    assert by_id[cases[0]["case_id"]]["parse_status"] == "ok"
    assert by_id[cases[0]["case_id"]]["condition"] == "evidence"
    assert by_id[cases[1]["case_id"]]["parse_status"] == "failed"
    assert by_id[cases[1]["case_id"]]["parse_error"] == "no JSON list found in the reply"


def run_cli(*args):
    scripts = str(Path(curate.__file__).resolve().parents[2])  # this checkout's package
    env = {**os.environ, "PYTHONPATH": scripts}
    return subprocess.run([sys.executable, "-m", "scievals", "autogkb", *args],
                          capture_output=True, text=True, check=False, env=env)


def test_cli_score_prints_reference_then_extras(tmp_path):
    row = {"Gene": "CYP2C19", "Drug(s)": "clopidogrel", "Direction of effect": "decreased"}
    (tmp_path / "t.json").write_text(json.dumps([row]))
    (tmp_path / "p.json").write_text(json.dumps([row, row]))
    done = run_cli("score", "--pred", str(tmp_path / "p.json"), "--truth", str(tmp_path / "t.json"))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert next(iter(out)) == "score"
    # Two exact copies of the one curated row: (1 + 1) / 1 x 100 = 200; one-to-one 100.
    assert out["score"] == 200.0 and out["one_to_one_score"] == 100.0
    assert out["precision"] == 0.5


@pytest.mark.parametrize("content, message", [
    ("{not json", "not valid JSON"),
    ('{"a": 1}', "expected a JSON list"),
    ("[1, 2]", "item 0: is a int"),
])
def test_cli_bad_file_exits_2_with_one_line(tmp_path, content, message):
    (tmp_path / "t.json").write_text("[]")
    (tmp_path / "p.json").write_text(content)
    done = run_cli("score", "--pred", str(tmp_path / "p.json"), "--truth", str(tmp_path / "t.json"))
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_fulltext_mode_uses_fetched_texts_and_lists_the_rest(tmp_path):
    text = tmp_path / "PMC3839910.txt"
    text.write_text("Full article text about HLA-B*15:02.")
    source = {"origin": "demo", "articles": [
        {"pmcid": "PMC3839910", "status": "ok", "licence": "CC BY", "file": str(text)},
        {"pmcid": "PMC554812", "status": "skipped", "licence": "NO-CC CODE",
         "reason": "PMC554812: licence 'NO-CC CODE' is not in autogkb.pmc.licences"}]}
    report = curate.curate(source, tmp_path, tmp_path / "c.jsonl", tmp_path / "r.json",
                           tmp_path / "v.json")
    assert report["dataset"] == "autogkb-demo-fulltext" and report["n_cases"] == 1
    assert report["licences"] == {"PMC3839910": "CC BY"}
    reasons = {e["pmcid"]: e["reason"] for e in report["excluded"]}
    assert "NO-CC CODE" in reasons["PMC554812"] and reasons["PMC3387531"] == "no full text fetched"
    (case,) = curate.read_cases(tmp_path / "c.jsonl")
    assert case["text"] == "Full article text about HLA-B*15:02." and case["text_mode"] == "fulltext"


def test_cli_validate_names_each_problem(curated, tmp_path):
    d, _ = curated
    (tmp_path / "own.json").write_text(json.dumps({"PMC3839910": [{"gene": "HLA-B"}],
                                                   "PMC554812": "not a list"}))
    done = run_cli("validate", str(tmp_path / "own.json"), "--cases", str(d / "cases.jsonl"))
    # The workflow refuses an entry that is not a list: INVALID; the missing articles (which
    # alone it would accept, scored 0) are said as well.
    assert done.returncode == 1 and "INVALID (the workflow refuses it)" in done.stdout
    assert "PMC554812: reply is a JSON str, not a list of annotations" in done.stdout
    assert "15 article(s) missing (scored 0)" in done.stdout


def test_clinpgx_release_cases_and_vocabulary_outside_the_test_set(tmp_path):
    folder = tmp_path / "clinpgx"
    folder.mkdir()
    header = "PMID\tGene\tDrug(s)\tSentence\tNotes\n"
    # PMID 23588310 is PMC3839910 (a test article); 999 is an article outside the test set.
    (folder / "var_pheno_ann.tsv").write_text(
        header + "23588310\tHLA-B\tcarbamazepine\tHLA-B *15:02 is associated with SJS.\t\n"
        "999\tCYP2C9\tphenytoin\tother\t\n")
    (folder / "var_drug_ann.tsv").write_text(header + "999\tVKORC1\twarfarin, acenocoumarol\tx\t\n")
    (folder / "var_fa_ann.tsv").write_text(header)
    report = curate.curate({"origin": "clinpgx", "articles": []}, tmp_path, tmp_path / "c.jsonl",
                           tmp_path / "r.json", tmp_path / "v.json")
    assert report["dataset"] == "autogkb-clinpgx-evidence-not-fulltext"
    assert [c["case_id"] for c in curate.read_cases(tmp_path / "c.jsonl")] == ["PMC3839910"]
    vocab = json.loads((tmp_path / "v.json").read_text())["drugs"]
    assert vocab == ["acenocoumarol", "phenytoin", "warfarin"]  # never carbamazepine
