"""The answers a report leads with: for each system against the reference, its net benefit with the
interval and adjusted p, whether the conclusion survives the design, and the warnings that bear on
it (SPEC §2, §4.1; ARCHITECTURE: ``report/``).

Nothing is computed here: every number is read from the sections below it — the flows (net
benefit, interval, adjusted p), the clustered-queries check (the same pair's conclusion when
queries are treated as independent and under the cluster design) — and every warning is a note
of their tables whose ``concerns`` name the system (or the reference, whose warnings bear on
every row). So the answers and the evidence can never disagree.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from memdiag.core.kinds import declare, with_intervals
from memdiag.core.notes import Note, as_note
from memdiag.core.result import as_result
from memdiag.plots._reading import alpha_text, correction, level
from memdiag.plots.style import plain, signed
from memdiag.reporting.context import Context, Section, omit
from memdiag.tables import format_p
from memdiag.views.captions import intervals

#: How the clustered-queries check words each outcome of a pair (``audit_independence``).
OUTCOMES: dict[str, str] = {
    "survives": "significant both with queries treated as independent and under the {design} design: the "
                "conclusion survives the design",
    "lost": "significant only with queries treated as independent: the conclusion does not survive the {design} "
            "design",
    "gained": "significant only under the {design} design, not with queries treated as independent",
    "neither": "significant neither with queries treated as independent nor under the {design} design",
}


def _bears_on(note: Note, system: str) -> bool:
    """Whether ``note`` names ``system`` among its concerns (alone, or as one side of a pair ``a − b``)."""
    return any(c == system or system in c.split(" − ") for c in note.concerns)


def _warnings(sections: Sequence[Section]) -> list[Note]:
    """Every warning of the shown tables (notes of severity ``"warning"``), each once."""
    notes = (as_note(n) for s in sections if s.omitted is None for t in s.tables.values()
             for n in t.attrs.get("notes", []))
    return list(dict.fromkeys(n for n in notes if n.severity == "warning"))


def _outcome(independence: pd.DataFrame | None, system: str, reference: str) -> str:
    """The clustered-queries outcome of the pair (system, reference); "" without that check."""
    if independence is None:
        return ""
    pair = independence[((independence["system_a"] == system) & (independence["system_b"] == reference))
                        | ((independence["system_a"] == reference) & (independence["system_b"] == system))]
    return str(pair["outcome"].iloc[0]) if len(pair) else ""


def answers_section(sections: Sequence[Section], ctx: Context) -> Section:
    """The answers section, read from the computed ``sections`` (it is placed before them).

    Its table ``answers`` has one row per system: ``system, reference, n, net, net_rate,
    net_rate_ci_low, net_rate_ci_high, p_adj, significant`` (the flows' numbers), ``design_outcome``
    (the clustered-queries outcome of the pair, empty without clusters) and ``warnings`` (how many
    warnings bear on it); each row is said in one line under the sentence.
    """
    ref = ctx.settings.reference
    section = Section("answers", f"Answers: each system against {ref}")
    found = {x.key: x for x in sections}
    flows = found.get("flows")
    if flows is None or "flows" not in flows.tables:
        return omit(section, "there are no flows against the reference" + (
            f" ({flows.omitted})" if flows is not None and flows.omitted else ""))
    table = flows.tables["flows"]
    section.sentence = (f"For each system against {ref}: the net benefit (benefit − tax, in points) with its "
                        f"{intervals(table, one=True)} and {correction(table)} (section \"{flows.title}\"), whether the "
                        f"conclusion survives the {ctx.design} design and the warnings that bear on it; the sections "
                        "below give the evidence.")
    clustering = found.get("clustering")
    independence = clustering.tables.get("independence") if clustering is not None else None
    if independence is not None:
        section.sentence += (f" Whether a conclusion survives the design is read from section \"{clustering.title}\", "
                             f"over all {len(independence)} pairs.")
    notes = _warnings(sections)
    on_reference = [n for n in notes if _bears_on(n, ref)]
    if any(n.code == "reference-fails-clusters" for n in on_reference):  # one fact, said once: as the reference's
        on_reference = [n for n in on_reference if n.code != "system-fails-clusters"]
    if on_reference:
        section.sentence += f" Warnings on {ref} bear on every row: {_joined(on_reference)}"
    rows = []
    for row in table.itertuples(index=False):
        own = [n for n in notes if _bears_on(n, row.system) and n not in on_reference]
        outcome = _outcome(independence, row.system, ref)
        rows.append({"system": row.system, "reference": ref, "n": row.n, "net": row.net, "net_rate": row.net_rate,
                     "net_rate_ci_low": row.net_rate_ci_low, "net_rate_ci_high": row.net_rate_ci_high,
                     "p_adj": row.p_adj, "significant": bool(row.p_adj < ctx.alpha), "design_outcome": outcome,
                     "warnings": len(own) + len(on_reference)})
        section.lines.append(_line(row, outcome, own, table, ctx))
    out = as_result(pd.DataFrame(rows), declare(points=with_intervals("net_rate"), p=("p_adj",)))
    out.attrs = {**table.attrs, "function": "answers", "notes": []}
    section.tables["answers"] = out
    return section


def _line(row, outcome: str, own: Sequence[Note], table: pd.DataFrame, ctx: Context) -> str:
    """One system's answer in words."""
    alpha = ctx.alpha
    verdict = "significant" if row.p_adj < alpha else "not significant"
    line = (f"{row.system}: net benefit {signed(row.net, 0)} of {int(row.n)} queries, {signed(row.net_rate)} points "
            f"({level(table)} {plain(row.net_rate_ci_low)} to {plain(row.net_rate_ci_high)}), "
            f"{correction(table)} {format_p(row.p_adj)}: {verdict} at α = {alpha_text(alpha)}")
    if outcome:
        line += f"; its accuracy difference is {OUTCOMES[outcome].format(design=ctx.design)}"
    elif (ctx.prepared.n_clusters or 0) < 2:
        line += "; the queries carry no clusters, so the design treats them as independent"
    if own:
        line += f"; warnings: {_joined(own)}"
    return line + ("" if own else ".")


def _joined(notes: Sequence[Note]) -> str:
    """Notes as one statement: separated by semicolons, ending with a full stop."""
    return "; ".join(str(n).rstrip(".") for n in notes) + "."
