"""``python -m scievals leaderboard LOG...`` (:mod:`scievals.interop.leaderboard`): the
parser only; the command imports the readers and the statistics when it runs."""

from __future__ import annotations

import argparse
import sys

FORMATS = ("markdown", "csv", "json")
RUNS_DIR = "results/runs"
IMPORTED_DIR = "results/imported"


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "leaderboard", help="rank the arms of logs (inspect_ai, lm-eval, Every Eval Ever) and "
        "kept runs per task and metric, with paired tests",
        description="One ranked table per task and metric: each arm's mean with its 95 % "
        "interval and n, ranks the paired tests allow (Holm; a shared rank where they do not "
        "separate arms), the smallest detectable difference, tokens and cost where the logs "
        "hold them. LOG: an inspect_ai .eval/.json log, an lm-eval results_*.json or output "
        "folder, an Every Eval Ever record, a table `import` kept, a kept run id (or prefix) "
        "as `python -m scievals logs` prints it, latest, latest-full, or imported:<id> "
        "(docs/importing-logs.md).")
    parser.add_argument("logs", nargs="+", metavar="LOG", help="logs, folders or run ids")
    parser.add_argument("--name", action="append", default=[], metavar="LABEL",
                        help="name the arm(s) of the n-th LOG (repeat, in order)")
    parser.add_argument("--format", choices=FORMATS, default="markdown",
                        help="what to print (default markdown)")
    parser.add_argument("--html", metavar="FILE",
                        help="also write a self-contained page: the tables and a per-item "
                        "side-by-side of any two arms")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the Monte-Carlo sign-flip test above 13 items")
    parser.add_argument("--runs-dir", default=RUNS_DIR, help=argparse.SUPPRESS)
    parser.add_argument("--imported-dir", default=IMPORTED_DIR, help=argparse.SUPPRESS)
    parser.set_defaults(func=command)


def command(args: argparse.Namespace) -> int:
    # here: the readers and the statistics load only when the command runs
    from scievals.common.io import write_text
    from scievals.interop import arms, leaderboard

    arms.check_names(args.name)
    sources = arms.read_arguments(args.logs, args.runs_dir, args.imported_dir)
    for error in sources.errors:
        print(f"error: {error.one_line()}", file=sys.stderr)
    if sources.errors:
        return 1
    board = leaderboard.build(arms.task_arms(sources, args.name), args.seed, sources.notes,
                              texts=bool(args.html))
    if args.html:
        from scievals.interop.leaderboard_html import page  # only for --html

        write_text(args.html, page(board))
    render = {"markdown": leaderboard.markdown, "csv": leaderboard.csv_text,
              "json": leaderboard.json_text}[args.format]
    text = render(board)
    print(text, end="" if text.endswith("\n") else "\n")
    if args.format == "csv":  # a CSV has no place for them: said beside it, at the end
        for note in board.notes:
            print(f"note: {note}", file=sys.stderr)
    if args.html:
        print(f"wrote {args.html}", file=sys.stderr)
    return 0
