"""Shared pytest configuration; Django settings come from pyproject.toml (pytest-django)."""
