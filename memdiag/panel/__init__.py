"""Canonical verdicts to a prepared panel: checks, schemes, conventions, cluster labels, alignment and the design choice."""
