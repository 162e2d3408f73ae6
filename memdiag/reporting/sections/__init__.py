"""The report's sections, in the order they appear: what each computes from the verdicts (SPEC §1–§10;
ARCHITECTURE: ``report/``).

Every section is a function of the shared :class:`~memdiag.reporting.context.Context` returning a
:class:`~memdiag.reporting.context.Section`; its figures and their captions come from the views
(:mod:`memdiag.views`). :data:`SECTIONS` fixes their order; the answers that lead the report
(:mod:`memdiag.reporting.answers`) are read from them. Sections compute; they never write.
"""

from __future__ import annotations

from collections.abc import Callable

from memdiag.reporting.context import Context, Section
from memdiag.reporting.sections.checks import (
    agreement_section,
    claims_section,
    judge_error_section,
    settings_section,
    writes_section,
)
from memdiag.reporting.sections.data import data_section, scores_section
from memdiag.reporting.sections.evidence import (
    costs_section,
    efficiency_section,
    evidence_section,
    store_gap_section,
)
from memdiag.reporting.sections.pairs import (
    augmentation_section,
    clustering_section,
    compare_section,
    flows_section,
    groups_section,
    sensitivity_section,
)

SECTIONS: tuple[Callable[[Context], Section], ...] = (
    data_section, scores_section, flows_section, augmentation_section, compare_section, sensitivity_section,
    clustering_section, groups_section, evidence_section, store_gap_section, costs_section, efficiency_section,
    agreement_section, writes_section, claims_section, judge_error_section, settings_section,
)

__all__ = ["SECTIONS", "Section"]
