"""``python -m scievals autogkb ...``: score one annotation list, inspect prompts and replies.

    autogkb score --pred P.json --truth T.json [--threshold 0.7]   scores as one JSON object
    autogkb validate MODEL.json [--cases cases.jsonl]              check a bring-your-own file
    autogkb parse REPLY.txt                                        how a reply is parsed
    autogkb prompt --cases cases.jsonl --pmcid PMC...              the prompt of one article

``score`` reads two JSON lists of annotation objects with the ClinPGx field names (the truth
may also be an AutoGKB article object with a ``var_pheno_ann`` list) and prints ``score``
(the reference headline, 0..100 |P|/|G|), then the extra metrics. Keys are used as given,
as the reference does; keys that are not the exact field names are listed under
``key_warnings``. A file that cannot be used exits with code 2 and one line.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

from scievals.common.errors import ScievalsError
from scievals.common.output import add_json_flag, print_check
from scievals.common.subcommands import benchmark_commands

# Each command imports what it needs inside its own function: `python -m scievals` imports
# every benchmark's cli module to build its parser, so imports at the top would load every
# command's modules (pandas, pydantic, scipy) for any command, `--help` included.
EXIT_BAD_FILE = 2


def _annotation_list(path: str, allow_article: bool) -> list[dict]:
    from scievals.common.io import read_json

    value = read_json(path)
    if allow_article and isinstance(value, dict) and isinstance(value.get("var_pheno_ann"), list):
        value = value["var_pheno_ann"]
    if not isinstance(value, list):
        raise ScievalsError(path, f"expected a JSON list of annotation objects, got a "
                            f"{type(value).__name__}", "write [{\"Gene\": ..., ...}, ...]")
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise ScievalsError(f"{path}: item {i}", f"is a {type(item).__name__}, not an object",
                                "every list element must be one annotation object")
    return value


def key_warnings(annotations: list[dict]) -> list[str]:
    """Keys that are not exact field names but spell one (the reference reads them as null)."""
    from scievals.autogkb.fields import KEY_ALIASES, squash
    from scievals.autogkb.metrics import FIELDS

    notes = []
    for i, item in enumerate(annotations):
        for key in item:
            target = KEY_ALIASES.get(squash(str(key)))
            if key not in FIELDS and target:
                notes.append(f"item {i}: key {key!r} is not the exact field name {target!r}; "
                             "the reference reads the field as null")
        if not any(f in item for f in FIELDS):
            notes.append(f"item {i}: none of the ten field names; it scores as all-null")
    return notes


def _json_ready(value):
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _json_ready(v) for k, v in value.items()}
    return value


def cmd_score(args) -> int:
    from scievals.autogkb.metrics import evaluate

    try:
        preds = _annotation_list(args.pred, allow_article=False)
        truths = _annotation_list(args.truth, allow_article=True)
    except ScievalsError as exc:
        print(f"error: {exc.one_line()}", file=sys.stderr)
        return EXIT_BAD_FILE
    if not 0 <= args.threshold <= 1:
        print(f"error: --threshold {args.threshold}: must be within 0..1", file=sys.stderr)
        return EXIT_BAD_FILE
    out = evaluate(preds, truths, args.threshold).as_dict()
    out["threshold"] = args.threshold
    out["key_warnings"] = key_warnings(preds) + [f"truth {w}" for w in key_warnings(truths)]
    print(json.dumps(_json_ready(out), indent=2, ensure_ascii=False))
    return 0


def cmd_validate(args) -> int:
    """Check a bring-your-own file as the workflow's import would: INVALID (exit 1) exactly
    when the workflow refuses it; what it accepts with a note (a missing article, scored 0;
    duplicates) is a warning (exit 0)."""
    from scievals.autogkb.predict import check_user_file

    errors, warnings = check_user_file(args.file, args.cases)
    detail = (f"{len(warnings)} warning(s): the workflow accepts the file and says these too"
              if warnings else "")
    return print_check(args.file, errors, warnings, detail=detail,
                       why="the workflow refuses it", as_json=args.json)


def cmd_parse(args) -> int:
    from scievals.autogkb.parser import parse_reply

    text = Path(args.reply).read_text(encoding="utf-8") if args.reply != "-" else sys.stdin.read()
    result = parse_reply(text)
    print(json.dumps(result.as_record(), indent=2, ensure_ascii=False))
    return 0 if result.ok else 1


def cmd_prompt(args) -> int:
    from scievals.autogkb.curate import read_cases
    from scievals.autogkb.prompts import SYSTEM, build_prompt

    cases = {c["case_id"]: c for c in read_cases(args.cases)}
    if args.pmcid not in cases:
        raise ScievalsError(args.cases, f"no article {args.pmcid!r}", f"known: {sorted(cases)}")
    print(f"[system]\n{SYSTEM}\n\n[user]\n{build_prompt(cases[args.pmcid])}")
    return 0


def register(subparsers) -> None:
    sub = benchmark_commands(subparsers, "autogkb", "pharmacogenomic annotation extraction",
                             __doc__)

    p = sub.add_parser("score", help="score predicted vs curated annotations (prints JSON)")
    p.add_argument("--pred", required=True, help="JSON list of predicted annotations")
    p.add_argument("--truth", required=True, help="JSON list of curated annotations")
    p.add_argument("--threshold", type=float, default=0.7,
                   help="pair score a prediction needs to count (default 0.7, as the reference)")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("validate", help="check a bring-your-own predictions file")
    p.add_argument("file", help="predictions/autogkb/<model>.json: PMCID -> list of annotations")
    p.add_argument("--cases", default="data/curated/autogkb/cases.jsonl",
                   help="curated cases (default: the workflow's; else the embedded PMCIDs)")
    add_json_flag(p)
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("parse", help="parse a raw model reply ('-' for stdin)")
    p.add_argument("reply")
    p.set_defaults(func=cmd_parse)

    p = sub.add_parser("prompt", help="print the extraction prompt of one article")
    p.add_argument("--cases", default="data/curated/autogkb/cases.jsonl")
    p.add_argument("--pmcid", required=True)
    p.set_defaults(func=cmd_prompt)
