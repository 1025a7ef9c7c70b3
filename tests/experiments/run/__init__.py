"""Tests of the run package (experiments/run), one module per unit."""
