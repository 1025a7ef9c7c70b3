"""boardlab: Monte Carlo strategy analysis for tabletop games.

Three layers, imported as ``boardlab.engines`` (the games' rules, policies and strong players),
``boardlab.experiments`` (the run loop, studies and the ``simulate`` command) and ``boardlab.analysis`` (intervals,
tables, figures and reports). Each lives in the project's top-level folder of the same name.
"""
