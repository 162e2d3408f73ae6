"""The vocabulary every layer speaks: option values and their checks, notes as records, the provenance of a result, escaping of user text."""
