"""Where providers' API keys live: names only, never values (no pydantic, so code that only
needs the names, such as waza's key redaction in a mock predict job, stays light)."""

# Where the provider's own endpoint needs a key although the config names none.
DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}

# What an `api_key_env` given on the command line may be: a variable's name as shells write
# them (upper case, digits, _). Anything else may be the key itself pasted by mistake, so it
# is refused without being shown (scievals.run).
KEY_ENV_NAME = r"[A-Z_][A-Z0-9_]*"
