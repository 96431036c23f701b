"""Executors side by side: ``mock`` (the baseline), ``agent`` (the LLM loop), ``replay``."""
