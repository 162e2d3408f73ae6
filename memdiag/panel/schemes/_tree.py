"""The weight-tree grammar: a nested list/mapping of groups flattened into per-group weights (SPEC §6).

Pure Python over the structure as read from YAML/JSON; no data, no NumPy.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from memdiag.errors import SchemeError, listing


def is_number(value: object) -> bool:
    """Whether ``value`` is an int or float (a bool is not a number here)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def tree_weights(tree: Mapping | Sequence | str) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """Flatten a weight tree into per-group weights and the weights of its named nodes.

    Grammar: a **string** is a group (a leaf). A **list** is the equal-weight mean of its items.
    A **mapping** is the weighted mean of its entries: ``name: number`` is the group ``name``
    with that relative weight; ``name: list-or-mapping`` is a named sub-tree with relative
    weight 1. A flat mapping of numbers is therefore a plain weighted mean of group means.

    Parameters
    ----------
    tree
        The nested structure (as read from YAML/JSON).

    Returns
    -------
    weights
        Group -> weight in the overall, summing to 1, in tree order.
    nodes
        Named sub-tree -> its own group weights (summing to 1), e.g. ``TTL`` of MemoryAgentBench.

    Raises
    ------
    SchemeError
        A weight that is not a positive number, a group listed twice, an empty node.

    Examples
    --------
    MemoryAgentBench's test-time learning (D.5, eq. 6): TTL = ½(ReDial + mean of 5 ICL sources).

    >>> w, nodes = tree_weights({"ReDial": 1, "ICL": ["a", "b", "c", "d", "e"]})
    >>> w["ReDial"], w["a"]
    (0.5, 0.1)
    >>> nodes["ICL"]["a"]
    0.2
    """
    weights: dict[str, float] = {}
    nodes: dict[str, dict[str, float]] = {}

    def walk(node: object, share: float, name: str | None) -> dict[str, float]:
        if isinstance(node, str):
            if node in weights:
                raise SchemeError(f"group '{node}' appears twice in the weight tree. List each group once.")
            weights[node] = share
            return {node: share}
        if isinstance(node, Mapping):
            children = [(str(k), str(k), float(v)) if is_number(v) else (str(k), v, 1.0)
                        for k, v in node.items()]
        elif isinstance(node, Sequence):
            children = [(None, item, 1.0) if not isinstance(item, str) else (item, item, 1.0)
                        for item in node]
        else:
            raise SchemeError(f"{node!r} is not a group name, a list or a mapping.")
        if not children:
            raise SchemeError(f"node '{name or 'root'}' is empty. Give it at least one group.")
        bad = [label for label, _, w in children if not (math.isfinite(w) and w > 0)]
        if bad:
            raise SchemeError(f"the weight of {listing(bad)} is not a positive number.")
        total = sum(w for _, _, w in children)
        part: dict[str, float] = {}
        for label, child, w in children:
            inner = label if not isinstance(child, str) else None
            part.update(walk(child, share * w / total, inner))
        if name is not None:
            if name in nodes or name in weights:
                raise SchemeError(f"node name '{name}' is used twice. Name nodes and groups apart.")
            nodes[name] = {g: v / share for g, v in part.items()}
        return part

    walk(tree, 1.0, None)
    clash = set(nodes) & set(weights)
    if clash:
        raise SchemeError(f"'{listing(sorted(clash))}' names both a node and a group. Name them apart.")
    return weights, nodes
