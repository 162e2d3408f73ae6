"""Synthesis over many comparisons or settings: pooling across settings, fragility, critical differences."""
