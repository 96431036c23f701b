"""config/config.yaml's commented LLM templates work when uncommented: the local
OpenAI-compatible server (Ollama) needs no API key, so its template names none."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from scievals.config_validation import validate_config
from scievals.llm.registry import api_key, key_env, model_spec

CONFIG = Path(__file__).resolve().parents[2] / "config" / "config.yaml"


def uncommented_config() -> dict:
    """config.yaml with the model templates under ``models:`` uncommented."""
    lines, in_models = [], False
    for line in CONFIG.read_text(encoding="utf-8").splitlines():
        if re.match(r"^\w", line):
            in_models = line.startswith("models:")
        if in_models and re.match(r"^  # ( {2})?[\w-]+:", line):
            line = "  " + line[4:]
        lines.append(line)
    return yaml.safe_load("\n".join(lines))


def test_the_local_server_template_needs_no_key(monkeypatch):
    monkeypatch.delenv("OLLAMA_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    config = uncommented_config()
    assert config["models"]["local-llama"] == {
        "provider": "openai", "model": "llama3.1:8b", "base_url": "http://localhost:11434/v1"}
    config["gating"]["models"] = [*config["gating"]["models"], "local-llama"]
    validate_config(config, where="config")  # raises on a schema error
    spec = model_spec("local-llama", config)
    assert key_env(spec) is None and api_key(spec) is None
    # the hosted template still names its key variable
    assert key_env(model_spec("claude-sonnet", config)) == "ANTHROPIC_API_KEY"
