"""Benchmarks: the listing benchmark (`python -m bench.run`) and its helpers."""
