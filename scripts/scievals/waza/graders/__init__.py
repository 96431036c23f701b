"""Grader families; importing this package registers every grader type."""
