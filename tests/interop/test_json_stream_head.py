"""``json_stream.head``: every top-level member but the samples, read with ijson's
prefix-free events and a depth of its own (a prefix grows with the nesting, so deeply
nested brackets were quadratic: 25 CPU-s for 200 kB)."""

from __future__ import annotations

import json

import pytest
from scievals.interop import json_stream

pytest.importorskip("ijson", reason="the interop extra streams big JSON logs")


def test_head_is_the_document_without_its_top_level_samples(tmp_path):
    # inner "samples" keys and inner maps closing must not be taken for the top level's
    doc = {"eval": {"samples": [1, 2], "x": {"y": [[], {}]}}, "a": [{"b": 1}, [2, [3]]],
           "samples": [{"id": 1, "samples": []}], "z": "s", "n": None, "f": 1.5, "t": True}
    path = tmp_path / "log.json"
    path.write_text(json.dumps(doc))
    expected = {k: v for k, v in doc.items() if k != "samples"}  # written out by hand
    assert json_stream.head(path) == (expected, "")
    assert list(json_stream.items(path)) == [{"id": 1, "samples": []}]


def test_deep_nesting_keeps_the_members_after_it(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"a": ' + "[" * 3000 + "]" * 3000 + ', "b": {"c": 1}, "samples": []}')
    found, why = json_stream.head(path)
    assert why == "" and sorted(found) == ["a", "b"] and found["b"] == {"c": 1}
    depth, value = 0, found["a"]
    while value:
        depth, value = depth + 1, value[0]
    assert depth == 2999  # 3000 brackets: 2999 lists inside the outermost


@pytest.mark.parametrize(("text", "why"), [
    ("[" * 100_000 + "]" * 100_000, "not a JSON object"),
    ('{"a": [1, 2}', "not strict JSON"),
    ('{"a": NaN}', "not strict JSON"),
])
def test_what_cannot_be_streamed_says_why(tmp_path, text, why):
    path = tmp_path / "x.json"
    path.write_text(text)
    found, said = json_stream.head(path)
    assert found is None and said.startswith(why)
