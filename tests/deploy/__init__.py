"""Tests of the reference deployment in deploy/."""
