"""Tests of the project as a whole: its import graph and the layers' rules."""
