"""The vocabulary every layer speaks: option values and their checks, notes as records, column kinds and the typed result with its provenance, escaping of user text."""
