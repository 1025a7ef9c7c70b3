"""The `simulate` commands, one module each; :mod:`experiments.cli` registers them on the app."""
