"""Shared plumbing: errors, atomic I/O, provenance and result tables."""
