"""Where providers' API keys live: names only, never values (no pydantic, so code that only
needs the names, such as waza's key redaction in a mock predict job, stays light)."""

# Where the provider's own endpoint needs a key although the config names none.
DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
