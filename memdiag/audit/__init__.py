"""Auditing the claims papers make: aggregates, rankings and stated comparisons (SPEC §5–§7).

One job: gather the audits under one name. :mod:`.aggregate` checks a published overall score
against its category scores, :mod:`.ranking` gives the bootstrap stability of a ranking, and
:mod:`.claims` checks stated comparisons against the verdicts, :mod:`.independence` which
conclusions of an analysis that treats queries as independent survive the clustered one;
:mod:`.granularity`, :mod:`.published` and :mod:`.summaries` audit a paper from its published
numbers alone (no verdicts: GRIM-style counts, McNemar p bounds, power, p-values at a bootstrap
floor, family adjustment); the power and detectable effect
those comparisons report live with the exact McNemar test, in :mod:`memdiag.engine.inference.power`,
and are re-exported here for the callers that import them from the audit.
"""

from memdiag.audit.aggregate import AGGREGATE_TOLERANCE, check_aggregate
from memdiag.audit.claims import VERDICTS, audit_claims
from memdiag.audit.granularity import granularity
from memdiag.audit.independence import audit_independence
from memdiag.audit.leaderboard import leaderboard
from memdiag.audit.published import (
           design_effect,
           mcnemar_bounds,
           p_at_floor,
           summary_power,
           survives_family,
)
from memdiag.audit.ranking import rank_stability
from memdiag.audit.summaries import SUMMARY_VERDICTS, audit_summaries
from memdiag.engine.inference.power import detectable_effect, mcnemar_power

__all__ = ["AGGREGATE_TOLERANCE", "SUMMARY_VERDICTS", "VERDICTS", "audit_claims", "audit_independence",
           "audit_summaries", "check_aggregate", "design_effect", "detectable_effect", "granularity", "leaderboard",
           "mcnemar_bounds",
           "mcnemar_power", "p_at_floor", "rank_stability", "summary_power",
           "survives_family"]
