"""Short names for systems: what the figures draw instead of ``Backboard-io__Backboard-Locomo-Benchmark``.

Three sources, later ones winning: a recipe's ``labels:`` (``attrs["labels"]`` of the verdicts
read with it), a ``label`` column of the systems table, and the user's own aliases — in the CLI
``--alias NAME=SHORT`` for a system, or ``--alias PATH=SHORT`` for the system read from a file or
folder. The figures take them as ``labels=`` (:mod:`memdiag.plots`), check that they are distinct
and shorten the names nobody aliased; the tables for people (:func:`memdiag.tables.render`) print
them in place of the names (:func:`relabel`), while CSV and JSON keep the full names.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from memdiag.errors import VerdictError


def aliases(df: pd.DataFrame, systems_table: pd.DataFrame | None = None,
            given: Mapping[str, str] | None = None) -> dict[str, str]:
    """``{system: label}`` of the systems in ``df``: the recipe's labels, then the systems table's
    ``label`` column, then ``given``; empty labels are ignored. Two systems that would be drawn
    under one name (``--alias a=b`` where ``b`` is another system) are a VerdictError.

    >>> df = pd.DataFrame({"system": ["Backboard-io__Backboard-Locomo-Benchmark", "zep"]})
    >>> table = pd.DataFrame({"system": ["zep"], "label": ["Zep"]})
    >>> aliases(df, table, {"Backboard-io__Backboard-Locomo-Benchmark": "Backboard"})
    {'zep': 'Zep', 'Backboard-io__Backboard-Locomo-Benchmark': 'Backboard'}
    """
    systems = set(pd.unique(df["system"].astype(str)))
    out: dict[str, str] = {}
    sources: list[Mapping] = [df.attrs.get("labels") or {}]
    if systems_table is not None and "label" in systems_table:
        rows = systems_table.dropna(subset=["label"])
        sources.append(dict(zip(rows["system"].astype(str), rows["label"].astype(str))))
    sources.append(given or {})
    for source in sources:
        out.update({str(k): str(v).strip() for k, v in source.items() if str(k) in systems and str(v).strip()})
    drawn: dict[str, str] = {}
    for system in sorted(systems):
        name = out.get(system, system)
        if name in drawn:  # two systems drawn under one name: a reader could not tell them apart
            first, second = sorted((drawn[name], system))
            raise VerdictError(f"the systems {first!r} and {second!r} would both be drawn as {name!r} (an "
                               "alias, a recipe's labels: or a systems table's label gives one of them the name "
                               "of the other); give each system its own label.")
        drawn[name] = system
    return out


def alias_options(items: Mapping[str, str], df: pd.DataFrame) -> dict[str, str]:
    """``--alias KEY=SHORT`` options as ``{system: label}``: KEY is a system name, or a file or
    folder read (its one system).

    Raises
    ------
    VerdictError
        A KEY that is neither, or a path holding several systems (alias those by name).
    """
    systems = set(pd.unique(df["system"].astype(str)))
    files = (pd.DataFrame({"system": df["system"].astype(str), "file": df["source_file"].astype(str)})
             .drop_duplicates() if "source_file" in df else pd.DataFrame(columns=["system", "file"]))
    out: dict[str, str] = {}
    for key, label in items.items():
        if key in systems:
            out[key] = label
            continue
        path = Path(key)
        if not path.exists():
            raise VerdictError(f"--alias {key}={label}: '{key}' is neither a system ({', '.join(sorted(systems))}) "
                               "nor a file or folder read. Use --alias NAME=SHORT or --alias PATH=SHORT.")
        root = path.resolve()
        under = {row.system for row in files.itertuples()
                 if Path(row.file).resolve() == root or root in Path(row.file).resolve().parents}
        if len(under) != 1:
            found = f"the systems {', '.join(sorted(under))}" if under else "no verdicts"
            raise VerdictError(f"--alias {key}={label}: '{key}' holds {found}; alias a system by its name "
                               "(--alias NAME=SHORT).")
        out[under.pop()] = label
    return out


def relabel(df: pd.DataFrame, labels: Mapping[str, str] | None) -> pd.DataFrame:
    """``df`` with every system name replaced by its label: each text cell equal to a name
    (``system``, ``system_a``, ``reference``, ``leader``, a matrix's ``row − column``...) and each
    column header equal to one (a pairwise matrix); numbers, notes and ``attrs`` unchanged.

    A table that shows the labels beside the names (a ``label`` column) keeps the names. Text
    that merely contains a name (``mem0 − raw-rag``) is left as it is.

    Parameters
    ----------
    df
        A result frame.
    labels
        ``{system: label}`` (:func:`aliases`); None or empty: ``df`` itself.

    Returns
    -------
    pandas.DataFrame
        A shallow copy with the names replaced (``df`` itself when there is nothing to replace).

    References
    ----------
    SPEC §4.6 (tables for people; the machine formats keep every name in full for joining).

    Examples
    --------
    >>> df = pd.DataFrame({"system_a": ["Backboard-io__Backboard", "zep"], "system_b": ["zep", "zep"],
    ...                    "diff": [1.5, 0.0]})
    >>> relabel(df, {"Backboard-io__Backboard": "Backboard", "zep": "Zep"}).values.tolist()
    [['Backboard', 'Zep', 1.5], ['Zep', 'Zep', 0.0]]
    """
    if not labels or "label" in df.columns:
        return df
    names = {str(k): str(v) for k, v in labels.items()}
    out = df.copy(deep=False)
    for k in range(out.shape[1]):
        column = out.iloc[:, k]
        if pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
            continue
        out.isetitem(k, column.astype(object).map(lambda v: names.get(v, v) if isinstance(v, str) else v))
    out.columns = [names.get(c, c) if isinstance(c, str) else c for c in out.columns]
    return out
