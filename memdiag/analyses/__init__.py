"""The diagnostics, one module per question a reader asks: scores, flows, comparisons, evidence, costs and the rest."""
