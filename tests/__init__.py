"""Tests mirror the packages: engines, experiments, analysis."""
