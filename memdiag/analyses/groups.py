"""Per-group tables: run one analysis within each group of a per-query column and stack the
results (SPEC §5.3, §5.7; Raw-RAG paper C.6 task families, Tables 1, 22, 24).

One job: :func:`by_group` splits prepared data by ``category`` (or any per-query column), runs
the analysis on each group's queries — so its family adjustment is within the group, one
benchmark × metric × group family — and stacks the tables with ``by`` and ``group`` columns
first (and the integer ``category_id`` beside LoCoMo category names, the groups then in the
benchmark's order, SPEC §6.2). Queries without a label form the group ``(none)``; nothing is dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pandas as pd

from memdiag.core.kinds import LABEL
from memdiag.core.notes import prefixed
from memdiag.core.result import as_result
from memdiag.panel import conventions as _conventions
from memdiag.panel.prepare import Prepared
from memdiag.panel.schemes._resolve import unlabelled_name

__all__ = ["UNLABELLED", "by_group", "groups_of"]

#: The group of queries that have no label in the ``by`` column.
UNLABELLED = "(none)"


def groups_of(prepared: Prepared, by: str, benchmark: str | None = None) -> list[tuple[str, Prepared]]:
    """``(label, queries of that group)`` for every group of ``by``, unlabelled queries last; the
    categories of a ``benchmark`` with integer categories in its order (LoCoMo: 1 multi-hop,
    2 temporal, ...; SPEC §6.2), other groups in the order of their labels."""
    codes, labels = prepared.panel.codes(by)
    groups = {str(label): prepared.subset(codes == k) for k, label in enumerate(labels)}
    order = _conventions.in_order(groups, benchmark if by == "category" else None)
    out = [(label, groups[label]) for label in order]
    if (codes < 0).any():  # never under the name of a real label '(none)'
        out.append((unlabelled_name(map(str, labels)), prepared.subset(codes < 0)))
    return out


def by_group(prepared: Prepared, by: str, run: Callable[..., pd.DataFrame], options: Mapping) -> pd.DataFrame:
    """``run(group, **options)`` for every group of ``by``, stacked.

    Returns
    -------
    pandas.DataFrame
        The groups' tables one after another with ``by``, ``group`` (and, for LoCoMo
        categories, ``category_id``) first. ``attrs``: the first group's provenance, the notes of
        every group (a note that only some groups have is prefixed with its group), ``by``,
        ``groups``, the ``df`` of each group's t intervals and its ``n_clusters`` (lists, when they
        differ) and the
        Monte-Carlo standard errors of every row.
    """
    benchmark = _conventions.benchmark_of(prepared.scheme.name if prepared.scheme else None,
                                          prepared.panel.queries.get("benchmark", ()))
    blocks, notes_by_group = [], []
    for label, part in groups_of(prepared, by, benchmark):
        block = run(part, **options)
        block.insert(0, "group", label)
        block.insert(0, "by", by)
        if by == "category" and benchmark is not None:
            block.insert(2, "category_id", _conventions.category_ids([label], benchmark).get(label))
        blocks.append(block)
        notes_by_group.append((label, list(block.attrs.get("notes", []))))
    out = pd.concat(blocks, ignore_index=True)
    shared = set.intersection(*(set(n) for _, n in notes_by_group))
    notes = [n for n in notes_by_group[0][1] if n in shared]
    notes += [prefixed(f"{by} {label}: ", n) for label, lines in notes_by_group for n in lines if n not in shared]
    attrs = dict(blocks[0].attrs)
    mc_se: dict[str, list] = {}
    for block in blocks:
        for key, values in block.attrs.get("mc_se", {}).items():
            mc_se.setdefault(key, []).extend(values)
    dfs = [block.attrs.get("df") for block in blocks]
    clusters = [block.attrs.get("n_clusters") for block in blocks]
    attrs.update(notes=list(dict.fromkeys(notes)), by=by, groups=[label for label, _ in notes_by_group],
                 mc_se=mc_se, df=dfs[0] if len(set(map(str, dfs))) == 1 else dfs,
                 n_clusters=clusters[0] if len(set(map(str, clusters))) == 1 else clusters,
                 family=f"{attrs.get('correction', 'holm')} within each {by} group")
    if "category_id" in out:
        out["category_id"] = out["category_id"].astype("Int64")
        out = as_result(out, {"category_id": LABEL})    # the dataset's integer naming a category, not a count
        attrs["convention"] = _conventions.canonical(benchmark).name
        attrs["notes"].append(_conventions.naming_note(benchmark))
    out.attrs = attrs
    return out
