"""``python -m scievals llm ...``: check models before a run, inspect and clear the cache."""

from __future__ import annotations

import argparse
from pathlib import Path

from scievals.common.errors import ScievalsError
from scievals.common.io import read_yaml
from scievals.llm.cache import cache_stats, clear_cache
from scievals.llm.probe import probe
from scievals.llm.registry import model_spec
from scievals.llm.settings import LLMSettings

DEFAULT_CONFIG = "config/config.yaml"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("llm", help="LLM layer: check models, manage the response cache")
    sub = parser.add_subparsers(dest="llm_command", metavar="ACTION", required=True)

    check = sub.add_parser(
        "check", help="reach each registered model's provider (one models-list call each)"
    )
    check.add_argument("--config", default=DEFAULT_CONFIG, help=f"config file ({DEFAULT_CONFIG})")
    check.add_argument("models", nargs="*", metavar="MODEL", help="registry names (default: all)")
    check.set_defaults(func=_check)

    cache = sub.add_parser("cache", help="response cache")
    cache_sub = cache.add_subparsers(dest="cache_command", metavar="ACTION", required=True)
    stats = cache_sub.add_parser("stats", help="entries and size, by provider/model")
    clear = cache_sub.add_parser("clear", help="delete entries (all, or one model's)")
    clear.add_argument("--model", help="model id as sent to the provider (e.g. gpt-4o-2024-08-06)")
    clear.add_argument("--provider", help="only this provider's entries (openai, anthropic, mock)")
    for action in (stats, clear):
        action.add_argument("--cache-dir", help="cache folder (default: llm.cache_dir of --config)")
        action.add_argument(
            "--config", default=DEFAULT_CONFIG, help=f"config file ({DEFAULT_CONFIG})"
        )
    stats.set_defaults(func=_stats)
    clear.set_defaults(func=_clear)

    ledger = sub.add_parser("spend", help="the cost ceiling's ledger: spent, in flight, "
                            "ceiling (docs/llm.md#cost-ceiling)")
    ledger.add_argument("--reset", action="store_true", help="start counting again from 0")
    ledger.add_argument("--config", default=DEFAULT_CONFIG, help=f"config file ({DEFAULT_CONFIG})")
    ledger.set_defaults(func=_spend)


def _load_config(path: str) -> dict:
    config = read_yaml(path) or {}
    if not isinstance(config, dict):
        raise ScievalsError(path, "the config is not a mapping", "see config/config.yaml")
    return config


def _check(args: argparse.Namespace) -> int:
    config = _load_config(args.config)
    names = args.models or sorted(config.get("models") or {})
    failed = 0
    for name in names:
        try:
            detail = probe(model_spec(name, config))
        except ScievalsError as exc:
            print(f"FAILED {name}: {exc.one_line()}")
            failed += 1
            continue
        print(f"OK     {name}: {detail}")
    return 1 if failed else 0


def _cache_dir(args: argparse.Namespace) -> Path:
    if args.cache_dir:
        return Path(args.cache_dir)
    if Path(args.config).exists():
        return LLMSettings.from_config(_load_config(args.config).get("llm")).cache_dir
    return LLMSettings().cache_dir


def _spend(args: argparse.Namespace) -> int:
    from scievals.llm import spend  # fcntl and the ledger only for this command

    section = _load_config(args.config).get("llm") if Path(args.config).exists() else None
    settings = LLMSettings.from_config(section, where=f"{args.config}: llm")
    path = Path(settings.spend_ledger or spend.DEFAULT_LEDGER)
    if args.reset:
        spent = spend.reset_ledger(path)
        print(f"ledger {path}: reset (it held {spent:.4f} USD)")
        return 0
    state = spend.read_ledger(path)
    in_flight = sum(entry["usd"] for entry in state["reserved"].values())
    ceiling = ("no ceiling (llm.max_cost_usd unset)" if settings.max_cost_usd is None
               else f"ceiling {settings.max_cost_usd:g} USD")
    print(f"ledger {path}: {state['spent_usd']:.4f} USD spent on {state['requests']} "
          f"request(s), {in_flight:.4f} USD reserved in flight; {ceiling}")
    return 0


def _human(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def _stats(args: argparse.Namespace) -> int:
    root = _cache_dir(args)
    stats = cache_stats(root)
    print(f"cache {root}: {stats.entries} entries, {_human(stats.bytes)}")
    for label, (n, size) in sorted(stats.by_model.items()):
        print(f"  {label}: {n} entries, {_human(size)}")
    return 0


def _clear(args: argparse.Namespace) -> int:
    root = _cache_dir(args)
    removed = clear_cache(root, model=args.model, provider=args.provider)
    what = " ".join(x for x in (args.provider, args.model) if x) or "all models"
    print(f"removed {removed} entries ({what}) from {root}")
    return 0
