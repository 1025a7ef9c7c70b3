"""Golden traces: readable, seeded games of the reference engines, regenerated on purpose by `make golden`."""
