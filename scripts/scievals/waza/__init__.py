"""Agent-skill evaluation (waza): load eval suites, run agents, grade their runs."""
