"""Report figures on small synthetic tables: the matrices and frames are checked by value,
the images only for being real, non-blank PNGs."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from PIL import Image
from scievals import registry
from scievals.abdev import figures as abdev
from scievals.common.errors import ScievalsError
from scievals.common.provenance import Provenance
from scievals.common.tables import concat_tables, result_rows, write_result_table
from scievals.figures import generic
from scievals.figures.frames import comparison_frame, metric_matrix, provenance_line
from scievals.figures.plots import default_gate_key, panel_order, tree_layout
from scievals.figures.spec import GENERIC_FIGURES
from scievals.gating import figures as gating

PROV = Provenance("abdev", "GDPa1-demo", "ab" * 32, "c0ffee123456", "0.1.0", "deadbeef1234")
ASSAYS = ["HIC", "Tm2", "Titer", "PR_CHO", "AC-SINS_pH7.4"]


def abdev_summary(tmp_path, *, models=("random", "ridge")):
    frames = []
    for k, model in enumerate(models):
        for condition in ("fold=0", "fold=aggregated", "fold=average"):
            metrics = []
            for a, assay in enumerate(ASSAYS):
                value = round(0.1 * a - 0.2 + 0.3 * k, 3)
                metrics.append({"metric": f"{assay}:spearman", "value": value,
                                "ci_low": value - 0.1, "ci_high": value + 0.05, "n": 40})
                metrics.append({"metric": f"{assay}:top_10_recall", "value": 0.5, "n": 40})
            frames.append(result_rows(PROV, model, condition, metrics))
    path = tmp_path / "summary.csv"
    write_result_table(path, pd.concat(frames, ignore_index=True))
    return path


def assert_png(path, min_colours=8):
    assert path.exists() and path.stat().st_size > 2000
    with Image.open(path) as image:
        assert image.format == "PNG"
        width, height = image.size
        assert width > 200 and height > 100
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) >= min_colours


def test_abdev_assay_matrix_has_the_average_spearman_of_each_model(tmp_path):
    table = concat_tables([abdev_summary(tmp_path)])
    matrix = abdev.assay_matrix(table)
    assert list(matrix.index) == ASSAYS
    assert list(matrix.columns) == ["random", "ridge"]
    expected = np.array([[round(0.1 * a - 0.2 + 0.3 * k, 3) for k in range(2)] for a in range(5)])
    np.testing.assert_allclose(matrix.to_numpy(), expected)


def test_abdev_assays_follow_the_reference_order_then_extra_assays(tmp_path):
    metrics = ["Tm2:spearman", "Zeta:spearman", "HIC:spearman", "HIC:top_10_recall"]
    assert abdev.assay_metrics(metrics) == ["HIC:spearman", "Tm2:spearman", "Zeta:spearman"]


def test_comparison_frame_keeps_points_and_cis_in_panel_order(tmp_path):
    table = concat_tables([abdev_summary(tmp_path)])
    frame = comparison_frame(table, metrics=["Tm2:spearman", "HIC:spearman"],
                             conditions=["fold=average"])
    assert list(frame["metric"].astype(str)) == ["Tm2:spearman"] * 2 + ["HIC:spearman"] * 2
    assert list(frame["model"]) == ["random", "ridge"] * 2
    row = frame[(frame["metric"] == "Tm2:spearman") & (frame["model"] == "ridge")].iloc[0]
    assert row["value"] == pytest.approx(0.2)
    assert row["ci_low"] == pytest.approx(0.1) and row["ci_high"] == pytest.approx(0.25)


def test_comparison_frame_rejects_empty_selection_and_duplicates(tmp_path):
    table = concat_tables([abdev_summary(tmp_path)])
    with pytest.raises(ScievalsError, match="no rows with metric"):
        comparison_frame(table, metrics=["HIC:pearson"], where="x.csv")
    doubled = pd.concat([table, table.assign(dataset="GDPa1")])
    with pytest.raises(ScievalsError, match="several rows"):
        comparison_frame(doubled, metrics=["HIC:spearman"], conditions=["fold=average"])


def test_metric_matrix_leaves_missing_pairs_nan_and_refuses_duplicates():
    rows = pd.DataFrame({"a": ["x", "x", "y"], "b": ["m", "n", "m"], "value": [1.0, 2.0, 3.0]})
    matrix = metric_matrix(rows, index="a", columns="b")
    assert matrix.loc["y", "m"] == 3.0 and math.isnan(matrix.loc["y", "n"])
    with pytest.raises(ScievalsError, match="several values"):
        metric_matrix(pd.concat([rows, rows.iloc[:1]]), index="a", columns="b")


def test_provenance_line_names_data_models_and_code(tmp_path):
    table = concat_tables([abdev_summary(tmp_path)])
    line = provenance_line(table)
    assert line == ("data: GDPa1-demo (sha256 abababababab) | models: random, ridge "
                    "| scievals 0.1.0 @ deadbeef1234")


def test_abdev_figures_are_written(tmp_path):
    summary = abdev_summary(tmp_path)
    for spec in registry.get("abdev").report_figures():
        out = tmp_path / f"{spec.name}.png"
        spec.draw({"summary": [str(summary)]}, str(out))
        assert_png(out)


def test_generic_comparison_works_for_a_benchmark_without_entry(tmp_path):
    prov = Provenance("waza", "skills-demo", "cd" * 32, "0123456789ab", "0.1.0", "abc")
    rows = pd.concat([
        result_rows(prov, m, c, [{"metric": "pass_rate", "value": v, "ci_low": v - .1,
                                  "ci_high": v + .1, "n": 10},
                                 {"metric": "score", "value": v / 2, "n": 10}])
        for m, c, v in [("a", "x", .5), ("b", "x", .7), ("a", "y", .4), ("b", "y", .9)]
    ])
    path = tmp_path / "summary.csv"
    write_result_table(path, rows)
    (spec,) = GENERIC_FIGURES
    assert spec.name == "model_comparison" and spec.inputs == ("summary",)
    out = tmp_path / "waza.png"
    spec.draw({"summary": [str(path)]}, str(out))
    assert_png(out)


def test_registry_lookup():
    assert registry.get("abdev").figure("assay_heatmap").draw is abdev.assay_heatmap
    with pytest.raises(KeyError):
        registry.get("abdev").figure("nope")
    names = [s.name for b in registry.REGISTRY for s in b.report_figures()]
    assert all(n.replace("_", "").isalnum() for n in names)


def per_case_table(tmp_path):
    rows = []
    for case, f1s in {"OMIP-1": (0.5, 0.8), "OMIP-2": (0.25, 1.0)}.items():
        for model, f1 in zip(("llm", "marker_baseline"), f1s, strict=True):
            rows.append({"case_id": case, "model": model, "condition": "standard_direct",
                         "hierarchy_f1": f1, "structure_accuracy": f1 / 2, "note": "x"})
    path = tmp_path / "per_case.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_gating_case_matrix_is_case_by_model(tmp_path):
    per_case = gating.read_per_case([str(per_case_table(tmp_path))])
    assert set(per_case["metric"]) == {"hierarchy_f1", "structure_accuracy"}
    matrix, metric = gating.case_matrix(per_case)
    assert metric == "hierarchy_f1"
    assert list(matrix.index) == ["OMIP-1", "OMIP-2"]
    assert list(matrix.columns) == ["llm", "marker_baseline"]
    np.testing.assert_allclose(matrix.to_numpy(), [[0.5, 0.8], [0.25, 1.0]])
    matrix, _ = gating.case_matrix(per_case, "structure_accuracy")
    assert matrix.loc["OMIP-2", "marker_baseline"] == 0.5


def test_gating_per_case_averages_repeated_samples(tmp_path):
    path = tmp_path / "pc.csv"
    pd.DataFrame({
        "model": ["m"] * 3, "case_id": ["c1", "c1", "c2"], "condition": ["s"] * 3,
        "sample_index": [0, 1, 0], "hierarchy_f1": [0.2, 0.6, 1.0], "parse_status": ["ok"] * 3,
    }).to_csv(path, index=False)
    per_case = gating.read_per_case([str(path)])
    assert set(per_case["metric"]) == {"hierarchy_f1"}
    matrix, _ = gating.case_matrix(per_case)
    assert matrix.loc["c1", "m"] == pytest.approx(0.4) and matrix.loc["c2", "m"] == 1.0


def test_gating_case_matrix_labels_columns_by_condition_when_several(tmp_path):
    per_case = gating.read_per_case([str(per_case_table(tmp_path))])
    other = per_case.assign(condition="rich_cot", value=per_case["value"] / 4)
    matrix, _ = gating.case_matrix(pd.concat([per_case, other]))
    assert "llm | rich_cot" in matrix.columns
    assert matrix.loc["OMIP-1", "llm | rich_cot"] == pytest.approx(0.125)


def test_gating_per_case_needs_id_columns(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("case,model,hierarchy_f1\nx,m,1\n")
    with pytest.raises(ScievalsError, match=r"lacks columns \['case_id', 'condition'\]"):
        gating.read_per_case([str(bad)])


TRUTH = {"name": "All Events", "children": [{"name": "Singlets", "children": [
    {"name": "Live", "children": [{"name": "CD3+ T cells", "children": []},
                                  {"name": "B cells", "children": []}]}]}]}
PRED = {"name": "all events", "children": [{"name": "Live", "children": [
    {"name": "CD3+ T-cells"}, {"name": "NK cells"}]}]}


def test_tree_layout_puts_parents_between_their_children():
    layout = tree_layout(TRUTH)
    names = [n[0] for n in layout]
    assert names == ["All Events", "Singlets", "Live", "CD3+ T cells", "B cells"]
    y = {n[0]: n[2] for n in layout}
    assert (y["CD3+ T cells"], y["B cells"]) == (0.0, 1.0)
    assert y["Live"] == y["Singlets"] == y["All Events"] == 0.5
    assert [n[1] for n in layout] == [0, 1, 2, 3, 3]
    assert [n[3] for n in layout] == [None, 0, 1, 2, 2]


def test_gate_key_matches_light_spelling_differences():
    assert default_gate_key("All Events") == default_gate_key("all events")
    assert default_gate_key("CD3+ T cells") == default_gate_key("CD3+ T-cells") == "cd3+tcells"
    assert default_gate_key("CD4+") != default_gate_key("CD4-")
    assert default_gate_key("CD3-CD19+") == "cd3-cd19+"


def test_gating_figures_are_written(tmp_path):
    summary_rows = pd.concat([
        result_rows(Provenance("gating", "omip-demo", "ef" * 32, "0" * 12, "0.1.0", "c"),
                    model, "standard_direct",
                    [{"metric": m, "value": v, "ci_low": v - .1, "ci_high": v + .1, "n": 2}
                     for m, v in zip(gating.HEADLINE, (.6, .5, .3, .7, .1, .4), strict=True)])
        for model in ("llm", "marker_baseline")
    ])
    summary = tmp_path / "summary.csv"
    write_result_table(summary, summary_rows)
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps({"case_id": "OMIP-1", "gating_hierarchy": {"root": TRUTH}}) + "\n")
    preds = tmp_path / "llm.jsonl"
    preds.write_text("\n".join(json.dumps(r) for r in [
        {"case_id": "OMIP-1", "model": "llm", "condition": "minimal_direct", "hierarchy": None},
        {"case_id": "OMIP-1", "model": "llm", "condition": "standard_direct", "hierarchy": PRED},
    ]) + "\n")
    inputs = {"summary": [str(summary)], "per_case": [str(per_case_table(tmp_path))],
              "cases": [str(cases)], "predictions": [str(preds)]}
    for spec in registry.get("gating").report_figures():
        out = tmp_path / spec.name if spec.directory else tmp_path / f"{spec.name}.png"
        spec.draw({k: inputs[k] for k in spec.inputs}, str(out))
        if spec.directory:
            assert sorted(p.name for p in out.iterdir()) == ["OMIP-1.png"]
            assert_png(out / "OMIP-1.png")
        else:
            assert_png(out)


def test_panel_order_puts_preferred_first():
    assert panel_order(["b", "z", "a", "HIC"], ["HIC", "Tm2"]) == ["HIC", "a", "b", "z"]


def test_generic_comparison_default_metrics_are_capped(tmp_path):
    prov = Provenance("x", "d", "0" * 64, "0" * 12, "0.1.0", "c")
    metrics = [{"metric": f"m{i:02d}", "value": i / 20} for i in range(12)]
    path = tmp_path / "s.csv"
    write_result_table(path, result_rows(prov, "a", "", metrics))
    out = tmp_path / "x.png"
    generic.model_comparison({"summary": [str(path)]}, str(out), benchmark="x")
    assert_png(out)


def test_captions_fall_back_to_generic_and_models_come_from_score_tables(tmp_path):
    from scievals.report.workflow import caption_path, data_source, report_inputs

    (tmp_path / "report" / "abdev").mkdir(parents=True)
    (tmp_path / "report" / "abdev" / "assay_heatmap.rst").write_text("x")
    assert caption_path(tmp_path, "abdev", "assay_heatmap") == "../report/abdev/assay_heatmap.rst"
    assert caption_path(tmp_path, "waza", "model_comparison") == (
        "../report/generic/model_comparison.rst")
    assert data_source("abdev", {"abdev": {"source": "auto"}}) == "auto"
    assert report_inputs(registry.get("gating"), ["a", "m.1"]) == {
        "summary": ["results/gating/summary.csv"],
        "per_case": ["results/gating/scores/a.per_case.csv", "results/gating/scores/m.1.per_case.csv"],
        "cases": ["data/curated/gating/cases.jsonl"],
        "predictions": ["results/gating/predictions/a.jsonl", "results/gating/predictions/m.1.jsonl"],
    }


def test_every_registered_figure_has_a_caption():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for bench in registry.REGISTRY:
        for spec in bench.figures:
            assert (root / "report" / bench.name / f"{spec.name}.rst").exists(), (bench.name, spec.name)
    assert (root / "report" / "generic" / "model_comparison.rst").exists()
    assert (root / "report" / "workflow.rst").exists()


def _red_pixels(png_path) -> int:
    """Pixels close to the DEMO mark's red (#b00020 = 176, 0, 32)."""
    import numpy as np
    from PIL import Image

    with Image.open(png_path) as image:
        rgb = np.asarray(image.convert("RGB")).astype(int)
    return int(((abs(rgb[..., 0] - 176) < 30) & (rgb[..., 1] < 40) & (abs(rgb[..., 2] - 32) < 30)
                ).sum())


def test_a_figure_on_demo_data_says_demo_in_the_image(tmp_path):
    """The same comparison drawn with a demo and a real provenance line: only the demo one
    carries the red DEMO label (no other element of this figure is that red)."""
    import pandas as pd
    from scievals.figures import plots

    frame = pd.DataFrame({"metric": ["m"] * 2, "condition": [""] * 2, "model": ["a", "b"],
                          "value": [0.2, 0.5], "ci_low": [0.1, 0.4], "ci_high": [0.3, 0.6]})
    plots.plot_model_comparison(frame, tmp_path / "demo.png", title="t",
                                subtitle="data: GDPa1-demo (sha256 3b1208fac9c7)")
    plots.plot_model_comparison(frame, tmp_path / "real.png", title="t",
                                subtitle="data: GDPa1 (sha256 4fed9d17118d)")
    assert _red_pixels(tmp_path / "demo.png") > 200
    assert _red_pixels(tmp_path / "real.png") == 0


def test_a_figure_of_many_models_shows_the_forty_highest_on_its_first_metric():
    """300 models made a 22,000 x 24,000-pixel chart (docs/scale.md): a figure shows at most
    MAX_FIGURE_MODELS, the highest on its first metric, and says so."""
    from scievals.figures.frames import MAX_FIGURE_MODELS, top_models

    # model m<i> scores i/100 on the first metric and -i on the second: the 40 highest on the
    # first are m060..m099 (values 0.60..0.99); the second metric does not decide
    rows = [{"metric": "a", "condition": "c", "model": f"m{i:03d}", "value": i / 100}
            for i in range(100)]
    rows += [{"metric": "b", "condition": "c", "model": f"m{i:03d}", "value": -i}
             for i in range(100)]
    shown, note = top_models(pd.DataFrame(rows))
    assert MAX_FIGURE_MODELS == 40
    assert shown == [f"m{i:03d}" for i in range(60, 100)]
    assert note == ("the 40 of 100 models highest on a; every model: "
                    "python -m scievals show --all")
    # at most the limit: every model, no note
    few = pd.DataFrame(rows[:40])
    assert top_models(few) == (sorted(few["model"]), "")


def test_the_provenance_line_stays_one_short_line_with_many_models(tmp_path):
    from scievals.figures.frames import provenance_line

    table = pd.DataFrame({"dataset": "d", "dataset_sha256": "0" * 64, "scievals_version": "0.1",
                          "git_commit": "abc", "model": [f"m{i:03d}" for i in range(300)]})
    # 300 names would be 2,400 characters: the count and the first and last name instead
    assert provenance_line(table) == ("data: d (sha256 000000000000) | models: 300 "
                                      "(m000 ... m299) | scievals 0.1 @ abc")
