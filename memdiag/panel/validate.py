"""A summary of canonical verdicts per system, and the notes a reader must see before any number:
unpaired queries, missing labels, attributes that differ across systems, and the category naming
conventions of the sources (SPEC §1.2, §1.4, §6.2).

:func:`validate` checks the verdicts (:func:`memdiag.io.canonical.check`) and summarises them;
:func:`memdiag.prepare` carries the same notes (:func:`attribute_conflicts`,
:func:`label_disagreements`, :func:`source_conventions`) into every result.
"""

from __future__ import annotations

import pandas as pd

from memdiag.core.kinds import FRACTION
from memdiag.core.notes import Note
from memdiag.core.result import as_result
from memdiag.errors import listing
from memdiag.io.canonical import check
from memdiag.io.schema import BINARY_LABELS, JUDGE, QUERY_ATTRIBUTES, RUN

__all__ = ["attribute_conflicts", "label_disagreements", "source_conventions", "validate"]


def validate(df: pd.DataFrame) -> pd.DataFrame:
    """Check ``df`` (see :func:`check`) and summarise it per system.

    Parameters
    ----------
    df
        Canonical verdicts (from :func:`read_verdicts` or built by hand); its
        ``attrs["read_notes"]`` are carried into the summary's notes.

    Returns
    -------
    pandas.DataFrame
        One row per system: ``queries`` (distinct query ids), ``rows``, ``repeats`` (judgments
        per query and run, min-max), ``runs`` (end-to-end runs, when a ``run`` column names them), ``missing_verdicts`` (rows with no usable score), ``missing_queries``
        (queries other systems have and this one lacks), ``mean_score`` (over usable verdicts);
        ``judges`` (the judges of the system, when a ``judge`` column names them) and
        ``missing_<label>`` (queries without that 0/1 label — ``sufficient``, ... — which the
        label diagnostics leave out) when some label is missing.
        ``attrs["notes"]`` lists the findings a user must see: what reading skipped, renamed,
        merged or could not parse (``attrs["read_notes"]`` of :func:`read_verdicts`), unpaired
        queries by name, missing labels per system, per-query attributes that disagree across
        systems, and sources whose own category labels disagree with the canonical category.

    Raises
    ------
    VerdictError
        ``df`` breaks a hard rule of SPEC §1.2 (see :func:`check`).

    References
    ----------
    SPEC §1.2 (hard rules), SPEC §1.4 (pairing: unpaired queries, attributes that differ between
    systems) and SPEC §6.2 (LoCoMo category naming conventions).

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["mem", "mem", "rag"], "query_id": ["q1", "q2", "q1"],
    ...                    "score": [1, 0, None]})
    >>> summary = validate(df)
    >>> summary[["system", "queries", "missing_verdicts", "missing_queries"]].to_dict("records")
    [{'system': 'mem', 'queries': 2, 'missing_verdicts': 0, 'missing_queries': 0}, {'system': 'rag', 'queries': 1, 'missing_verdicts': 1, 'missing_queries': 1}]
    >>> summary.attrs["notes"]
    ["system 'rag' lacks 1 of 2 queries: q2"]
    """
    read_notes = list(df.attrs.get("read_notes", ()))
    df = check(df)
    all_queries = pd.Index(pd.unique(df["query_id"]))
    runs = RUN in df and df[RUN].notna().any()
    per_query = df.groupby(["system", "query_id"] + ([RUN] if runs else []), sort=False, dropna=False).size()
    reps = per_query.groupby(level="system", sort=True).agg(["min", "max"])
    reps["size"] = df.groupby("system", sort=True)["query_id"].nunique()
    stats = df.groupby("system", sort=True).agg(rows=("query_id", "size"),
                                                missing_verdicts=("score", lambda s: int(s.isna().sum())),
                                                mean_score=("score", "mean"))
    rows = []
    notes: list[str] = []
    for name in stats.index:
        lo, hi, n_queries = (int(v) for v in reps.loc[name, ["min", "max", "size"]])
        rows.append({
            "system": name,
            "queries": n_queries,
            "rows": int(stats.loc[name, "rows"]),
            "repeats": f"{lo}" if lo == hi else f"{lo}-{hi}",
            **({"runs": max(1, int(df.loc[df["system"] == name, RUN].nunique()))} if runs else {}),
            "missing_verdicts": int(stats.loc[name, "missing_verdicts"]),
            "missing_queries": len(all_queries) - n_queries,
            "mean_score": float(stats.loc[name, "mean_score"]),
        })
        if n_queries < len(all_queries):
            lacking = all_queries.difference(per_query.loc[name].index)
            notes.append(Note(f"system '{name}' lacks {len(lacking)} of {len(all_queries)} queries: "
                              f"{listing(lacking)}", code="missing-queries", severity="caution", concerns=(name,)))
    notes.extend(_label_gaps(df, rows))
    notes.extend(attribute_conflicts(df))
    notes.extend(label_disagreements(df))
    notes.extend(source_conventions(df))
    notes = read_notes + notes
    summary = as_result(pd.DataFrame(rows), {"mean_score": FRACTION})
    summary.attrs["notes"] = notes
    summary.attrs["n_queries"] = len(all_queries)
    return summary


def _label_gaps(df: pd.DataFrame, rows: list[dict]) -> list[str]:
    """Add ``judges`` and ``missing_<label>`` to the per-system rows; notes on missing labels."""
    if JUDGE in df and df[JUDGE].notna().any():
        judges = df.dropna(subset=[JUDGE]).groupby("system")[JUDGE].unique()
        for row in rows:
            row["judges"] = ", ".join(sorted(judges.get(row["system"], []))) or "-"
    notes = []
    for column in BINARY_LABELS:
        if column not in df:
            continue
        answered = df.groupby(["system", "query_id"], sort=True)[column].apply(lambda v: v.notna().any())
        lacking = (~answered).groupby(level="system").sum()
        if not lacking.any():
            continue
        for row in rows:
            row[f"missing_{column}"] = int(lacking.get(row["system"], 0))
        per = ", ".join(f"{name} {int(k)}" for name, k in lacking.items() if k)
        notes.append(Note(f"'{column}' is missing for some queries ({per}): the diagnostics that need it leave those "
                          "queries out and say so (label_missing='error' / --label-missing error refuses them)",
                          code="label-missing", severity="caution"))
    return notes


def attribute_conflicts(df: pd.DataFrame) -> list[str]:
    """Per-query attributes (``category``, ``cluster``, ...) that differ across the systems of a query."""
    notes = []
    for column in QUERY_ATTRIBUTES:
        if column in df:
            distinct = df.dropna(subset=[column]).groupby("query_id")[column].nunique()
            conflicted = distinct.index[distinct > 1]
            if len(conflicted):
                notes.append(Note(f"{len(conflicted)} queries carry different '{column}' values across "
                                  f"systems (the first non-missing value is used): {listing(conflicted)}",
                                  code="attribute-conflict", severity="caution"))
    return notes


def label_disagreements(df: pd.DataFrame) -> list[str]:
    """Where a source's own category label names another category than the canonical one."""
    if "source_category" not in df or "category" not in df:
        return []
    pairs = df.dropna(subset=["source_category", "category"])
    pairs = pairs[~pairs["source_category"].astype(str).str.fullmatch(r"\d+")]
    norm = pairs["source_category"].astype(str).str.lower().str.replace(r"[\s_]+", "-", regex=True)
    pairs = pairs[norm != pairs["category"].astype(str).str.lower()]
    notes = []
    counts = pairs.groupby(["system", "source_category", "category"], sort=True)["query_id"].nunique()
    for (system, label, canonical), n in counts.items():
        notes.append(Note(f"system '{system}' labels {n} '{canonical}' queries as '{label}' "
                          "(the canonical category is used)", code="category-relabel", concerns=(system,)))
    return notes


def source_conventions(df: pd.DataFrame) -> list[str]:
    """For LoCoMo data, the naming convention each system's own labels follow (SPEC §6.2), so a
    reader can match the source's published table to memdiag's integer-and-name columns."""
    from memdiag.panel import conventions as _conventions

    if "source_category" not in df or "category" not in df:
        return []
    pairs = df.dropna(subset=["source_category", "category"])
    pairs = pairs[~pairs["source_category"].astype(str).str.fullmatch(r"\d+")]
    canonical = _conventions.canonical("locomo")
    named: dict[tuple[str, str, int, str], list[str]] = {}  # one note per convention and example
    for system, rows in pairs.groupby("system", sort=True):
        ids = _conventions.category_ids(pd.unique(rows["category"]), "locomo")
        if not ids or len(ids) < rows["category"].nunique():
            continue
        labels = rows.drop_duplicates("category").set_index("category")["source_category"]
        found = _conventions.identify({ids[c]: labels[c] for c in ids}, "locomo")
        if found and canonical.name not in found:
            example = min(ids, key=ids.get)
            key = (" / ".join(found), str(labels[example]), ids[example], _conventions.labelled(example))
            named.setdefault(key, []).append(str(system))
    notes = []
    for (convention, label, integer, labelled), systems in named.items():
        who = f"system '{systems[0]}' names" if len(systems) == 1 else \
            f"{len(systems)} systems ({', '.join(repr(s) for s in systems)}) name"
        notes.append(Note(f"{who} LoCoMo's categories by the {convention} convention: its '{label}' is category "
                          f"{integer}, shown as '{labelled}' (SPEC §6.2)", code="category-convention",
                          concerns=systems))
    return notes
