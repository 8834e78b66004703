"""Benchmarks run by `make bench`; they print figures and never fail on speed."""
