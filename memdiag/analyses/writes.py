"""Write-action (mutation) audit of a memory system's decision log (SPEC §7; Raw-RAG paper C.2, Fig. 2).

A memory system such as Mem0 emits one decision per candidate fact — ADD, UPDATE, DELETE or
NONE — and persists some of them. :func:`write_audit` counts, per cluster (conversation) and
decision-weighted overall, how often mutation is *proposed* (UPDATE or DELETE emitted) and how
often it *takes effect* (a persisted text-changing UPDATE or a persisted DELETE), and the
decision counts under the ADD/NONE-only counterfactual policy. :func:`memdiag.read_write_log`
(:mod:`memdiag.io.write_log`) reads a log from CSV or JSON lines.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from memdiag.core.kinds import declare, with_intervals
from memdiag.core.notes import Note
from memdiag.core.provenance import stamp
from memdiag.engine.options import Options, as_options
from memdiag.io.write_log import OVERALL, checked_log

#: The four roles a decision can play, in the order ``decisions=`` lists their labels.
ROLES: tuple[str, ...] = ("ADD", "UPDATE", "DELETE", "NONE")

#: How many examples a note lists.
_SHOW = 5


# --------------------------------------------------------------------------------------------
# the audit
# --------------------------------------------------------------------------------------------
def _roles(decisions: Sequence[str] | Mapping[str, str]) -> dict[str, str]:
    """Label as declared -> role, from four labels in role order or a label -> role mapping."""
    if isinstance(decisions, Mapping):
        pairs = [(str(label), str(role).strip().upper()) for label, role in decisions.items()]
    else:
        labels = list(decisions)
        if len(labels) != len(ROLES):
            raise ValueError(f"decisions: give the four labels in the order {', '.join(ROLES)} (got "
                             f"{labels!r}), or a mapping label -> role.")
        pairs = list(zip(map(str, labels), ROLES))
    unknown = [role for _, role in pairs if role not in ROLES]
    if unknown:
        raise ValueError(f"decisions: role {unknown[0]!r} is not one of {', '.join(ROLES)}.")
    return dict(pairs)


def _examples(values: pd.Series) -> str:
    counts = values.value_counts(dropna=False)
    text = ", ".join(f"{k!r} ({v})" for k, v in list(counts.items())[:_SHOW])
    return text + (f" and {len(counts) - _SHOW} more labels" if len(counts) > _SHOW else "")


def _duplicates(log: pd.DataFrame, role: pd.Series) -> np.ndarray:
    """Rows that repeat an earlier decision of the same cluster (see :func:`write_audit`)."""
    dup = np.zeros(len(log), dtype=bool)
    if "decision_id" in log:
        has_id = log["decision_id"].notna().to_numpy()
        dup |= has_id & log.duplicated(["cluster", "decision_id"], keep="first").to_numpy()
    if "memory_id" in log:
        key = pd.DataFrame({"cluster": log["cluster"], "role": role,
                            "memory_id": log["memory_id"].astype(str),
                            "new_text": log["new_text"].fillna("").astype(str).str.strip()})
        acting = (role.isin(["ADD", "UPDATE", "DELETE"]) & log["memory_id"].notna()).to_numpy()
        dup |= acting & key.duplicated(keep="first").to_numpy()
    return dup


def _text_changed(log: pd.DataFrame) -> np.ndarray:
    """Old and new text both present and different (surrounding whitespace ignored)."""
    old, new = log["old_text"], log["new_text"]
    present = old.notna().to_numpy() & new.notna().to_numpy()
    differ = old.astype(str).str.strip().to_numpy() != new.astype(str).str.strip().to_numpy()
    return present & differ


def _summary(frame: pd.DataFrame) -> dict:
    role = frame["role"]
    n = len(frame)
    counts = {f"n_{r.lower()}": int((role == r).sum()) for r in ROLES}
    effective_update = int((frame["effective"] & (role == "UPDATE")).sum())
    effective_delete = int((frame["effective"] & (role == "DELETE")).sum())
    return {
        "n_decisions": n, **counts,
        "n_malformed": int(role.isna().sum()), "n_duplicate": int(frame["duplicate"].sum()),
        "n_effective_update": effective_update, "n_effective_delete": effective_delete,
        "proposed_rate": 100 * (counts["n_update"] + counts["n_delete"]) / n,
        "effective_rate": 100 * (effective_update + effective_delete) / n,
        "cf_add": counts["n_add"] + counts["n_update"], "cf_none": counts["n_none"] + counts["n_delete"],
    }


def _intervals(rows: pd.DataFrame, confidence_level: float) -> pd.DataFrame:
    """Clopper–Pearson intervals (points) of the proposed and effective rates of every row."""
    from statsmodels.stats.proportion import proportion_confint

    n = rows["n_decisions"].to_numpy()
    counts = {"proposed": rows["n_update"].to_numpy() + rows["n_delete"].to_numpy(),
              "effective": rows["n_effective_update"].to_numpy() + rows["n_effective_delete"].to_numpy()}
    for name, k in counts.items():
        low, high = proportion_confint(k, n, alpha=1 - confidence_level, method="beta")
        position = rows.columns.get_loc(f"{name}_rate") + 1
        rows.insert(position, f"{name}_rate_ci_high", 100 * np.asarray(high, dtype=float))
        rows.insert(position, f"{name}_rate_ci_low", 100 * np.asarray(low, dtype=float))
    return rows


def write_audit(log: pd.DataFrame, *,
                decisions: Sequence[str] | Mapping[str, str] = ROLES,
                options: Options | Mapping | None = None) -> pd.DataFrame:
    """Proposed and effective mutation rates per cluster and overall (SPEC §7; C.2, Figure 2).

    Parameters
    ----------
    log
        One row per emitted decision: ``cluster`` (conversation), ``decision`` (label),
        ``persisted`` (whether the action reached the store's history: bool, 0/1, yes/no; empty
        means no), ``old_text`` and ``new_text`` (the memory text before and after). Optional
        ``memory_id`` (the memory the decision acts on) and ``decision_id`` (the emitted
        decision's own id) enable duplicate detection. :func:`memdiag.read_write_log` reads one.
    decisions
        The labels of the four roles in the order ``("ADD", "UPDATE", "DELETE", "NONE")``, or a
        mapping label -> role for several spellings (e.g. ``{"NOOP": "NONE", ...}``). Labels are
        matched ignoring case and surrounding whitespace.
    options
        :class:`memdiag.Options` (or a mapping of its fields; None: the defaults); reads
        confidence_level only: the level of the Clopper–Pearson intervals of the two rates.

    Returns
    -------
    pandas.DataFrame
        One row per cluster (sorted) and a last row ``cluster == "overall"``: ``cluster,
        n_decisions, n_add, n_update, n_delete, n_none, n_malformed, n_duplicate,
        n_effective_update, n_effective_delete, proposed_rate, proposed_rate_ci_low,
        proposed_rate_ci_high, effective_rate, effective_rate_ci_low, effective_rate_ci_high,
        cf_add, cf_none``. Rates and their intervals are in points (percent of all decisions).
        ``attrs["notes"]`` reports unknown labels (with examples), normalised spellings and
        duplicates.

    Raises
    ------
    VerdictError
        A required column missing, an empty ``cluster`` or one named ``overall``, a
        ``persisted`` value that is not a yes/no flag (naming file, row and field), or a bad
        ``confidence_level``.
    ValueError
        ``decisions`` that are not four labels in role order nor a mapping to the four roles.

    Notes
    -----
    With n the number of emitted decisions of a cluster (NONE, malformed and duplicate rows
    included: C.2 "relative to all emitted decisions"):

    - proposed_rate = 100 (n_UPDATE + n_DELETE) / n;
    - effective_rate = 100 (persisted UPDATEs whose old and new text are both present and differ +
      persisted DELETEs) / n, duplicates excluded — a repeated mutation changes nothing the
      first did not (C.2: "an effective update must have a persisted record with available old
      and new text that differ; a persisted deletion also counts");
    - ADD/NONE-only counterfactual (C.2, D.3.8): UPDATE becomes ADD and DELETE becomes NONE, so
      cf_add = n_ADD + n_UPDATE, cf_none = n_NONE + n_DELETE (its mutation rates are 0).

    The ``overall`` row pools the decisions of every cluster, so its rates are
    decision-weighted means of the cluster rates (Figure 2's dashed lines).

    Each rate has an exact binomial (Clopper–Pearson) interval for its count out of n decisions
    (statsmodels ``proportion_confint(method="beta")``): it treats a row's decisions as
    independent, so the ``overall`` interval, which pools clusters, is narrower than a
    cluster-aware one would be.

    A label that is none of the four (after trimming and upper-casing) is **malformed**: it is
    counted in n and n_malformed, listed in the notes, and never mapped to a role. A
    **duplicate** is a row that repeats an earlier row of the same cluster: the same
    ``decision_id`` (one decision logged twice), or the same action (ADD, UPDATE or DELETE) on
    the same ``memory_id`` with the same new text (e.g. one update proposed twice, a memory
    deleted twice). Without those columns duplicates cannot be detected and the notes say so.

    References
    ----------
    SPEC §7.1 (write-action audit) and SPEC §8 (the mutation-rate and write-action figures);
    Raw-RAG paper C.2 (rates relative to all emitted decisions, effectiveness by persisted text
    changes, the ADD/NONE-only counterfactual), D.3.8 and Figure 2.
    Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits illustrated
    in the case of the binomial. Biometrika 26(4), 404–413.

    Examples
    --------
    >>> log = pd.DataFrame({"cluster": ["c1"] * 4 + ["c2"] * 2,
    ...     "decision": ["ADD", "UPDATE", "update ", "NONE", "DELETE", "MERGE"],
    ...     "persisted": [1, 1, 1, 0, 1, 0],
    ...     "old_text": [None, "likes tea", "lives in Oslo", None, "has a cat", None],
    ...     "new_text": ["likes tea", "likes green tea", "lives in Oslo", None, None, None]})
    >>> out = write_audit(log)
    >>> out[["cluster", "n_decisions", "n_update", "n_malformed", "proposed_rate", "effective_rate"]]
       cluster  n_decisions  n_update  n_malformed  proposed_rate  effective_rate
    0       c1            4         2            0           50.0       25.000000
    1       c2            2         0            1           50.0       50.000000
    2  overall            6         2            1           50.0       33.333333
    >>> out.attrs["notes"][0]
    "1 decision with an unknown label counted as malformed (not mapped to any role): 'MERGE' (1)"
    """
    confidence_level = as_options(options).confidence_level
    log = checked_log(log)
    roles = _roles(decisions)
    lookup = {label.strip().upper(): r for label, r in roles.items()}
    raw = log["decision"]
    role = raw.map(lambda v: None if pd.isna(v) else lookup.get(str(v).strip().upper()))
    notes: list[str] = []
    malformed = role.isna()
    if malformed.any():
        k = int(malformed.sum())
        notes.append(Note(f"{k} decision{'s' if k != 1 else ''} with an unknown label counted as malformed "
                          f"(not mapped to any role): {_examples(raw[malformed])}", code="malformed-decisions",
                          severity="caution"))
    variant = ~malformed & ~raw.isin(list(roles))
    if variant.any():
        k = int(variant.sum())
        notes.append(Note(f"{k} label{'s' if k != 1 else ''} differ{'s' if k == 1 else ''} from the known "
                          f"ones in case or whitespace only and {'was' if k == 1 else 'were'} read as "
                          f"{'it' if k == 1 else 'them'}: {_examples(raw[variant])}", code="decision-labels-read"))
    duplicate = _duplicates(log, role)
    if not {"memory_id", "decision_id"} & set(log.columns):
        notes.append(Note("duplicates not checked: the log has no memory_id or decision_id column",
                          code="duplicates-unchecked", severity="caution"))
    elif duplicate.any():
        notes.append(Note(f"{int(duplicate.sum())} duplicate decisions (same decision_id, or the same action "
                          "on the same memory with the same text, within a cluster): counted in every "
                          "denominator, never as effective", code="duplicate-decisions", severity="caution"))
    persisted = log["persisted"].to_numpy()
    effective = ~duplicate & persisted & (((role == "UPDATE").to_numpy() & _text_changed(log))
                                          | (role == "DELETE").to_numpy())
    frame = pd.DataFrame({"cluster": log["cluster"], "role": role, "duplicate": duplicate,
                          "effective": effective})
    rows = [{"cluster": name, **_summary(part)} for name, part in frame.groupby("cluster", sort=True)]
    rows.append({"cluster": OVERALL, **_summary(frame)})
    out = _intervals(pd.DataFrame(rows), confidence_level)
    return stamp(out, "write_audit", kinds=declare(points=with_intervals("proposed_rate", "effective_rate")), notes=notes, unit="points", decisions=dict(roles),
                 n_clusters=len(rows) - 1, confidence_level=confidence_level,
                 interval="Clopper-Pearson",
                 source=str(log["source_file"].iloc[0]) if "source_file" in log else None)
