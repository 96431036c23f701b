"""Cases: one per article with at least one phenotype annotation (``var_pheno_ann``).

A case holds the article's PMCID/PMID/title, its ground-truth phenotype annotations and
its text in one of two modes, named in the dataset label:

- ``evidence``: the curated ``Sentence`` and ``Notes`` of all the article's own
  annotations (phenotype, drug and functional). No download needed, but the sentences
  restate much of the answer, so this mode tests *structuring* curated statements, not
  reading an article. Its label ends in ``-evidence-not-fulltext`` and it must never be
  reported as a full-text result.
- ``fulltext``: the article text fetched from PMC's open-access services (licence
  recorded per article; articles without an allowed licence are left out and listed).

Also written: the drug vocabulary of the baseline, built only from annotations of
articles outside the test set (drug/FA-only articles of the embedded subset, or every
other ClinPGx article when the ClinPGx tables were downloaded).
"""

from __future__ import annotations

import re
from pathlib import Path

from scievals.autogkb import data
from scievals.autogkb.data import ANNOTATION_TYPES, dataset_label
from scievals.common.errors import ScievalsError
from scievals.common.io import (
    canonical_json,
    read_json,
    read_jsonl,
    sha256_text,
    write_json,
    write_jsonl,
)
from scievals.common.selection import limited_label, limited_summary, say_limited, select

TEXT_MODES = ("evidence", "fulltext")
CASE_KEYS = ("case_id", "pmid", "title", "text_mode", "text", "text_licence", "truth")


def evidence_text(article: dict) -> str:
    """The curated sentences and notes of every annotation of the article, one per line."""
    lines = []
    for table in ANNOTATION_TYPES:
        for row in article.get(table) or []:
            for key in ("Sentence", "Notes"):
                value = row.get(key)
                if value and str(value).strip() and str(value).strip() not in lines:
                    lines.append(str(value).strip())
    return "\n".join(lines)


def split_drugs(value) -> list[str]:
    if not value:
        return []
    return [d.strip().lower() for d in re.split(r"[,;/]", str(value)) if d.strip()]


def drug_vocabulary(rows: list[dict]) -> list[str]:
    return sorted({d for row in rows for d in split_drugs(row.get("Drug(s)"))})


def build_cases(articles: dict[str, dict], text_mode: str,
                texts: dict[str, dict] | None = None) -> tuple[list[dict], list[dict]]:
    """(cases, excluded) from PMCID -> article; ``texts`` gives full texts (fulltext mode)."""
    if text_mode not in TEXT_MODES:
        raise ScievalsError("autogkb.text_mode", f"unknown mode {text_mode!r}",
                            f"use one of {list(TEXT_MODES)}")
    cases, excluded = [], []
    for pmcid in sorted(articles):
        article = articles[pmcid]
        truth = article.get("var_pheno_ann") or []
        if not truth:
            excluded.append({"pmcid": pmcid, "reason": "no phenotype annotation"})
            continue
        if text_mode == "evidence":
            text, licence = evidence_text(article), "CC BY-SA 4.0 (ClinPGx curation)"
        else:
            entry = (texts or {}).get(pmcid)
            if not entry or entry.get("status") != "ok":
                excluded.append({"pmcid": pmcid, "reason": (entry or {}).get("reason")
                                 or "no full text fetched"})
                continue
            text = Path(entry["file"]).read_text(encoding="utf-8")
            licence = entry["licence"]
        cases.append({"case_id": pmcid, "pmid": str(article.get("pmid") or ""),
                      "title": article.get("title"), "text_mode": text_mode, "text": text,
                      "text_licence": licence, "truth": truth})
    return cases, excluded


def write_curation(cases: list[dict], excluded: list[dict], vocabulary: list[str],
                   vocabulary_source: str, label: str, out_cases, out_report, out_vocab,
                   limited: dict | None = None) -> dict:
    if not cases:
        raise ScievalsError(out_cases, "no case left after curation",
                            "check autogkb.text_mode and the download report (excluded: "
                            + "; ".join(f"{e['pmcid']}: {e['reason']}" for e in excluded[:3]) + ")")
    write_jsonl(out_cases, cases)
    write_json(out_vocab, {"source": vocabulary_source, "drugs": vocabulary})
    report = {
        "dataset": label, "text_mode": cases[0]["text_mode"], "n_cases": len(cases),
        "n_annotations": sum(len(c["truth"]) for c in cases), "excluded": excluded,
        "licences": {c["case_id"]: c["text_licence"] for c in cases},
        "vocabulary": {"source": vocabulary_source, "n_drugs": len(vocabulary)},
        "cases_sha256": sha256_text(canonical_json(cases)),
        **({"limited": limited} if limited else {}),  # a smoke run's cut (common.selection)
    }
    write_json(out_report, report)
    return report


def read_cases(path) -> list[dict]:
    cases = read_jsonl(path)
    for i, case in enumerate(cases, 1):
        missing = [k for k in CASE_KEYS if k not in case]
        if missing:
            raise ScievalsError(f"{path}:{i}", f"case lacks {missing}",
                                "write cases with scievals.autogkb.curate")
    return cases


def curate(download_report: dict, raw_dir, out_cases, out_report, out_vocab,
           chosen: dict | None = None) -> dict:
    """The curate step: embedded or ClinPGx annotations -> cases, vocabulary, report;
    ``chosen`` (:mod:`scievals.common.selection`) keeps some articles for a smoke run."""
    embedded = data.load_articles(data.DEMO_FILE)
    test_ids = data.test_pmcids(embedded)
    origin = download_report["origin"]
    if origin == "clinpgx":
        folder = Path(raw_dir) / "clinpgx"
        pmids = {p: str(embedded[p]["pmid"]) for p in test_ids}
        articles = data.articles_from_clinpgx(folder, pmids)
        for pmcid in articles:
            articles[pmcid]["title"] = embedded[pmcid].get("title")
        vocab_rows = data.other_rows(folder, set(pmids.values()))
        vocab_source = "ClinPGx annotations of articles outside the test set"
    else:
        articles = embedded  # build_cases lists the articles without phenotype rows
        vocab_rows = [row for p, a in embedded.items() if p not in test_ids
                      for table in ANNOTATION_TYPES for row in a.get(table) or []]
        vocab_source = "embedded subset: annotations of the drug/FA-only articles (not tested)"
    text_mode = "fulltext" if download_report.get("articles") else "evidence"
    texts = {a["pmcid"]: a for a in download_report.get("articles") or []}
    every, excluded = build_cases(articles, text_mode, texts)
    cases = select(every, chosen, lambda case: case["case_id"])
    if len(cases) < len(every):
        say_limited("autogkb", f"{len(cases)} of {len(every)} articles")
    label = limited_label(dataset_label(origin, text_mode), chosen, len(cases), len(every))
    report = write_curation(cases, excluded, drug_vocabulary(vocab_rows), vocab_source, label,
                            out_cases, out_report, out_vocab,
                            limited_summary(chosen, len(cases), len(every)))
    report_extra = {"fallback": download_report.get("fallback")}
    return {**report, **report_extra}


# The job of autogkb_curate: scievals.common.entry.run_stage imports this module
# for it alone, so the job loads its own stage's code and nothing else.
def stage_curate(smk) -> None:
    """Annotations + texts -> cases, drug vocabulary and the curation report."""
    curate(read_json(smk.input.source), smk.params.raw_dir, smk.output.cases,
           smk.output.report, smk.output.vocabulary, getattr(smk.params, "selection", None))
