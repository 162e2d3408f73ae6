"""Auditing the claims papers make: aggregates, rankings and stated comparisons (SPEC §5–§7).

One job: gather the audits under one name. :mod:`.aggregate` checks a published overall score
against its category scores, :mod:`.ranking` gives the bootstrap stability of a ranking, and
:mod:`.claims` checks stated comparisons against the verdicts, :mod:`.independence` which
conclusions of an analysis that treats queries as independent survive the clustered one; the power and detectable effect
those comparisons report live with the exact McNemar test, in :mod:`memdiag._inference.power`,
and are re-exported here for the callers that import them from the audit.
"""

from memdiag._audit.aggregate import AGGREGATE_TOLERANCE, check_aggregate
from memdiag._audit.claims import CLAIM_FIELDS, VERDICTS, audit_claims, read_claims
from memdiag._audit.independence import audit_independence
from memdiag._audit.ranking import rank_stability
from memdiag._inference.power import detectable_effect, mcnemar_power

__all__ = ["AGGREGATE_TOLERANCE", "CLAIM_FIELDS", "VERDICTS", "audit_claims", "audit_independence", "check_aggregate",
           "detectable_effect", "mcnemar_power", "rank_stability", "read_claims"]
