import math

import pandas as pd
import pytest
from scievals.common.errors import ScievalsError
from scievals.common.io import atomic_path, read_json, read_yaml, write_csv
from scievals.common.provenance import Provenance, config_hash
from scievals.stats.intervals import bootstrap_ci, mean_ci
from scievals.common.tables import RESULT_COLUMNS, concat_tables, result_rows, write_result_table


def test_atomic_write_leaves_old_file_on_error(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("crash")
    assert target.read_text() == "old"
    assert list(tmp_path.iterdir()) == [target]


def test_readers_name_the_file_and_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"a": 1,\n "b": }')
    with pytest.raises(ScievalsError, match=r"bad.json:2: not valid JSON"):
        read_json(bad)
    bad_yaml = tmp_path / "bad.yaml"
    bad_yaml.write_text("a: [1, 2\nb: 3\n")
    with pytest.raises(ScievalsError, match="bad.yaml"):
        read_yaml(bad_yaml)


def test_config_hash_is_order_independent():
    assert config_hash({"a": 1, "b": [1, 2]}) == config_hash({"b": [1, 2], "a": 1})
    assert config_hash({"a": 1}) != config_hash({"a": 2})


def test_result_tables_round_trip_and_concat(tmp_path):
    prov = Provenance("abdev", "d", "0" * 64, "h", git_commit="deadbeef")
    t1 = result_rows(prov, "m1", "", [{"metric": "x", "value": 1, "ci_low": 0.5, "ci_high": 1.5, "n": 3}])
    t2 = result_rows(prov, "m0", "", [{"metric": "x", "value": None}])
    write_result_table(tmp_path / "a.csv", t1)
    write_result_table(tmp_path / "b.csv", t2)
    merged = concat_tables([tmp_path / "a.csv", tmp_path / "b.csv"])
    assert list(merged.columns) == RESULT_COLUMNS
    assert merged["model"].tolist() == ["m0", "m1"]  # sorted
    assert pd.isna(merged["value"].iloc[0])
    assert merged["git_commit"].tolist() == ["deadbeef", "deadbeef"]


def test_write_result_table_rejects_foreign_columns(tmp_path):
    with pytest.raises(ScievalsError, match="lacks columns"):
        write_result_table(tmp_path / "x.csv", pd.DataFrame({"a": [1]}))
    assert not (tmp_path / "x.csv").exists()


def test_bootstrap_is_seeded_and_brackets_the_estimate():
    values = [0.2, 0.4, 0.6, 0.8, 1.0]
    low, high = mean_ci(values, 2000, seed=1)
    assert (low, high) == mean_ci(values, 2000, seed=1)
    assert low < 0.6 < high
    assert mean_ci([0.5, 0.5, 0.5], 100, 0) == (0.5, 0.5)
    assert all(math.isnan(v) for v in mean_ci([1.0], 100, 0))  # one value: no interval
    off = bootstrap_ci(([1.0, 2.0],), lambda x, axis: x.mean(axis=axis), 0, 0)
    assert all(math.isnan(v) for v in off)


def test_atomic_write_uses_the_normal_file_mode(tmp_path):
    import os

    mask = os.umask(0)
    os.umask(mask)
    write_csv(tmp_path / "t.csv", pd.DataFrame({"a": [1]}))
    assert (tmp_path / "t.csv").stat().st_mode & 0o777 == 0o666 & ~mask


# --- a folder or a missing path where a file is expected: one line, exit 1 (issue 14, item 9) --


def _case_file():
    from scievals.gating.paths import OMIP_VERIFIED_DIR

    return str(min(OMIP_VERIFIED_DIR.glob("*.json")))


@pytest.mark.parametrize(
    "argv",
    [
        ["gating", "score", "--pred", "{dir}", "--truth", "{case}"],
        ["gating", "score", "--pred", "{case}", "--truth", "{dir}"],
        ["gating", "baseline", "--truth", "{dir}"],
        ["gating", "parse", "{dir}"],
        ["gating", "check-cases", "{dir}"],
        ["gating", "cases", "--list", "--cases", "{dir}"],
    ],
    ids=lambda argv: " ".join(argv[:2]) + " " + argv[-2],
)
def test_folder_instead_of_file_is_one_line(tmp_path, capsys, argv):
    from scievals.cli import main

    args = [a.format(dir=tmp_path, case=_case_file()) for a in argv]
    (tmp_path / "summary.csv").write_text("")
    assert main(args) == 1
    assert capsys.readouterr().err == (
        f"error: {tmp_path}: is a folder, not a file (give the path of a file in it)\n"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["gating", "parse", "{missing}"],
        ["gating", "cases", "--list", "--cases", "{missing}"],
        ["gating", "score", "--pred", "{missing}", "--truth", "{case}"],
        ["llm", "check", "--config", "{missing}"],
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_missing_file_is_one_line(tmp_path, capsys, argv):
    from scievals.cli import main

    missing = tmp_path / "nonexistent"
    assert main([a.format(missing=missing, case=_case_file()) for a in argv]) == 1
    assert capsys.readouterr().err == f"error: {missing}: file not found (check the path)\n"


def test_readers_name_a_non_utf8_file(tmp_path):
    from scievals.common.io import read_jsonl, read_user_text

    latin = tmp_path / "latin1.jsonl"
    latin.write_bytes('{"name": "caf\xe9"}\n'.encode("latin-1"))
    for reader in (read_jsonl, read_json, read_yaml, read_user_text):
        with pytest.raises(ScievalsError, match=r"latin1\.jsonl: not UTF-8 text \(byte 13\)"):
            reader(latin)


def test_read_jsonl_keeps_line_separator_characters_inside_strings(tmp_path):
    from scievals.common.io import read_jsonl

    path = tmp_path / "x.jsonl"
    path.write_text('{"t": "a\u2028b"}\n\n{"t": 2}\n', encoding="utf-8")
    assert read_jsonl(path) == [{"t": "a\u2028b"}, {"t": 2}]


def test_json_nested_too_deeply_is_one_line(tmp_path):
    from scievals.common.io import read_jsonl

    deep = "[" * 100_000 + "]" * 100_000
    path = tmp_path / "deep.jsonl"
    path.write_text('{"ok": 1}\n' + deep + "\n")
    with pytest.raises(ScievalsError, match=r"deep\.jsonl:2: JSON nested too deeply"):
        read_jsonl(path)
    single = tmp_path / "deep.json"
    single.write_text(deep)
    with pytest.raises(ScievalsError, match=r"deep\.json: JSON nested too deeply"):
        read_json(single)
