"""Benchmark scripts, never part of the test suite; the listing benchmark is `bench.run`."""
