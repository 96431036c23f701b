"""Grader families (one module each), their API (``base``) and registry (``registry``)."""
