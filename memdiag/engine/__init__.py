"""Resampling and inference: designs, the paired bootstrap engine, exact and small-cluster tests, multiplicity, meta-analysis, options."""
