"""Runs a compiled pipeline on Spark; knows nothing of Django (docs/RUNTIME.md)."""
