"""``python -m scievals gating ...``: score, inspect and debug single cases.

    gating score --pred PRED --truth CASE.json     metrics of one prediction (JSON)
    gating cases --list [--cases cases.jsonl]      the test cases (and rejected files)
    gating validate PRED.jsonl [--cases cases.jsonl]  check a prediction file against the cases
    gating check-cases CASE.json ...               check test-case (truth) files
    gating prompt --truth CASE.json --context standard --strategy cot
    gating baseline --truth CASE.json              the marker baseline's tree
    gating parse REPLY.txt                         how a raw reply is parsed
    gating extract --wsp WS.wsp ... [--out x.jsonl] read FlowJo workspaces (flowkit)

PRED is a hierarchy JSON (``{name, markers, children}``, ``{"root": ...}`` or a whole
test case) or a raw model reply, which is parsed as in the workflow.
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
from pathlib import Path

from scievals.common.errors import ScievalsError
from scievals.common.io import read_user_text
from scievals.common.output import add_json_flag, print_check
from scievals.common.subcommands import benchmark_commands
from scievals.gating.records import DEEP_FIX
from scievals.gating.tree import TOO_DEEP

# Each command imports what it needs inside its own function: `python -m scievals` imports
# every benchmark's cli module to build its parser, so imports at the top would load every
# command's modules (pandas, pydantic, scipy) for any command, `--help` included.


def _read_prediction(path: str):
    text = read_user_text(path)
    try:
        value = json.loads(text)
    except RecursionError:
        raise ScievalsError(path, TOO_DEEP, DEEP_FIX) from None
    except json.JSONDecodeError:
        return text
    return value if isinstance(value, (dict, list)) else text


def _json_ready(value):
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _json_ready(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_ready(v) for v in value]
    return value


def cmd_score(args) -> int:
    from scievals.gating.cases import load_case_file
    from scievals.gating.metrics import Truth, evaluate
    from scievals.gating.parser import parse_prediction
    from scievals.gating.task_failure import classify

    from scievals.gating.semantic import load_scorer

    case = load_case_file(args.truth)
    raw = _read_prediction(args.pred)
    parsed = parse_prediction(raw)
    if parsed.error == TOO_DEEP:
        raise ScievalsError(args.pred, TOO_DEEP, DEEP_FIX)
    semantic = None  # the inputs first: a bad file is its one line, with no note before it
    if args.semantic is not False:  # computed when available, unless --no-semantic
        semantic, reason = load_scorer()
        if semantic is None and args.semantic:
            raise ScievalsError("gating score --semantic", reason)
        if semantic is None:
            print(f"note: {reason}", file=sys.stderr)
    scores = evaluate(parsed.hierarchy if parsed.ok else None, Truth.from_case(case),
                      details=args.details, semantic=semantic)
    text = raw if isinstance(raw, str) else None
    failure = classify(text, parsed.ok) if text is not None else ("none" if parsed.ok else "unparseable")
    out = {**scores, "parse_success": parsed.ok, "task_failure": failure != "none",
           "task_failure_type": failure, "parse_method": parsed.method,
           "parse_error": parsed.error, "test_case_id": case["test_case_id"]}
    print(json.dumps(_json_ready(out), indent=2, ensure_ascii=False))
    return 0


def cmd_cases(args) -> int:
    from scievals.gating.cases import read_cases, summary_row
    from scievals.gating.curate import load_omip_dir
    from scievals.gating.paths import OMIP_STAGING_DIR, OMIP_VERIFIED_DIR

    if args.cases:
        rows, rejected = [summary_row(c) for c in read_cases(args.cases)], []
    else:
        rows, rejected = [], []
        for folder in (OMIP_VERIFIED_DIR, OMIP_STAGING_DIR):
            valid, bad = load_omip_dir(folder)
            rows += [summary_row(c) for c in valid]
            rejected += bad
    if args.json:
        print(json.dumps({"cases": rows, "rejected": rejected}, indent=2))
        return 0
    cols = ["test_case_id", "case_set", "source_type", "species", "panel_entries", "gates", "depth",
            "critical"]
    print("\t".join(cols))
    for row in sorted(rows, key=lambda r: r["test_case_id"]):
        print("\t".join(str(row[c]) for c in cols))
    for bad in rejected:
        print(f"rejected\t{bad['test_case_id']}\t{bad['file']}\t{'; '.join(bad['reasons'])}")
    print(f"{len(rows)} cases, {len(rejected)} rejected", file=sys.stderr)
    return 0


def cmd_validate(args) -> int:
    """A prediction file against the truth cases, checked as the workflow's import checks it."""
    from scievals.gating.predict import imported_records

    count = unparsed = 0
    try:  # one record at a time: memory does not grow with the file
        for record in imported_records(args.file, args.cases, args.model):
            count += 1
            unparsed += record.get("parse_status") != "ok"
    except ScievalsError as exc:
        return print_check(args.file, [exc.one_line()], as_json=args.json)
    note = f", {unparsed} of them not parseable: scored as failures" if unparsed else ""
    return print_check(args.file, [], detail=f"{count} prediction(s){note}", as_json=args.json)


def cmd_check_cases(args) -> int:
    from scievals.common.io import read_json
    from scievals.gating.cases import validation_problems

    codes = [print_check(path, validation_problems(read_json(path)), as_json=args.json)
             for path in args.files]
    return max(codes, default=0)


def cmd_prompt(args) -> int:
    from scievals.gating.cases import load_case_file
    from scievals.gating.prompts import SYSTEM, build_prompt

    case = load_case_file(args.truth)
    print(f"[system]\n{SYSTEM}\n\n[user]\n{build_prompt(case, args.context, args.strategy)}")
    return 0


def cmd_baseline(args) -> int:
    from scievals.gating.baseline import predict_hierarchy
    from scievals.gating.cases import load_case_file
    from scievals.gating.tree import render

    tree = predict_hierarchy(load_case_file(args.truth))
    print("\n".join(render(tree)) if args.ascii else json.dumps(tree, indent=2, ensure_ascii=False))
    return 0


def cmd_parse(args) -> int:
    from scievals.gating.parser import parse_reply
    from scievals.gating.tree import render

    text = read_user_text(args.reply) if args.reply != "-" else sys.stdin.read()
    result = parse_reply(text)
    print(json.dumps({"parse_status": result.status, "parse_method": result.method,
                      "parse_error": result.error, "warnings": result.warnings}, indent=2))
    if result.hierarchy:
        print("\n".join(render(result.hierarchy)))
    return 0 if result.ok else 1


def cmd_extract(args) -> int:
    from scievals.common.io import read_jsonl
    from scievals.gating.extract import extract_workspaces
    from scievals.gating.tree import render

    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or str(Path(tmp) / "extracted.jsonl")
        report = args.report or str(Path(tmp) / "report.json")
        extract_workspaces(args.wsp, out, report, fcs_dirs=args.fcs_dir)
        records = read_jsonl(out)
    for rec in records:
        if rec["status"] != "ok":
            print(f"{rec['workspace']}: skipped ({rec['reason']})")
            continue
        print(f"{rec['workspace']}: {len(rec['samples'])} sample(s), groups {sorted(rec['groups'])}")
        for sample in rec["samples"][: args.samples]:
            print(f"  sample {sample['sample_id']} (FCS {'loaded' if sample['fcs_loaded'] else 'absent'}),"
                  f" panel: {', '.join(e['marker'] for e in sample['panel'])}")
            root = {"name": "root", "children": []}
            index = {("root",): root}
            for gate in sample["gates"]:
                count = f" [{gate['count']} events]" if gate["count"] is not None else ""
                label = f"{gate['name']}  {gate['gate_type']} ({', '.join(gate['markers'])}){count}"
                new = {"name": label, "children": []}
                index[tuple(gate["path"])]["children"].append(new)
                index[tuple(gate["path"]) + (gate["name"],)] = new
            print("\n".join("    " + line for line in render(root)))
    return 0 if all(r["status"] == "ok" for r in records) else 1


def register(subparsers) -> None:
    sub = benchmark_commands(subparsers, "gating", "flow-cytometry gating benchmark", __doc__)

    p = sub.add_parser("score", help="score one prediction against one test case (prints JSON)")
    p.add_argument("--pred", required=True, help="hierarchy JSON or raw model reply")
    p.add_argument("--truth", required=True, help="test case JSON (OMIP format)")
    p.add_argument("--details", action="store_true", help="add matched/missing/hallucinated gates")
    semantic = p.add_mutually_exclusive_group()
    semantic.add_argument("--semantic", action="store_true", default=None,
                          help="require semantic_f1, weighted_semantic_f1 and "
                               "semantic_f1_marker_guarded (an error when the MiniLM weights "
                               "are missing; by default they are added when installed: "
                               "docs/gating.md)")
    semantic.add_argument("--no-semantic", dest="semantic", action="store_false",
                          help="leave the semantic metrics out (no model is loaded)")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("cases", help="list test cases (embedded OMIP files by default)")
    p.add_argument("--list", action="store_true", help="list the cases (the default action)")
    p.add_argument("--cases", help="a curated cases.jsonl instead of the embedded files")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=cmd_cases)

    p = sub.add_parser("validate", help="check a prediction file against the truth cases")
    p.add_argument("file", help="predictions JSONL (the format of predictions/gating/<model>.jsonl)")
    p.add_argument("--cases", default="data/curated/gating/cases.jsonl",
                   help="curated cases (default: the workflow's)")
    p.add_argument("--model", default="own", help="model name for records that name none")
    add_json_flag(p)
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("check-cases", help="check test-case (truth) JSON files")
    p.add_argument("files", nargs="+")
    add_json_flag(p)
    p.set_defaults(func=cmd_check_cases)

    p = sub.add_parser("prompt", help="print the prompt of one case and condition")
    p.add_argument("--truth", required=True, help="test case JSON")
    p.add_argument("--context", default="standard", choices=["minimal", "standard", "rich"])
    p.add_argument("--strategy", default="direct", choices=["direct", "cot"])
    p.set_defaults(func=cmd_prompt)

    p = sub.add_parser("baseline", help="print the marker baseline's hierarchy for a case")
    p.add_argument("--truth", required=True, help="test case JSON")
    p.add_argument("--ascii", action="store_true", help="print a tree instead of JSON")
    p.set_defaults(func=cmd_baseline)

    p = sub.add_parser("parse", help="parse a raw reply file ('-' for stdin)")
    p.add_argument("reply")
    p.set_defaults(func=cmd_parse)

    p = sub.add_parser("extract", help="read FlowJo workspaces with flowkit")
    p.add_argument("--wsp", nargs="+", required=True, help=".wsp files")
    p.add_argument("--fcs-dir", action="append", default=[], help="folder with FCS files (repeatable)")
    p.add_argument("--out", help="write the extraction records (JSONL) here")
    p.add_argument("--report", help="write the extraction report (JSON) here")
    p.add_argument("--samples", type=int, default=1, help="samples to print per workspace")
    p.set_defaults(func=cmd_extract)
