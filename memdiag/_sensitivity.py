"""Parameter sensitivity: each setting of a parameter against the default, with paired intervals.

The paper's Figure 4 sweeps the final top-k of retrieval and plots, for each k, the difference
from the default k = 15 with its paired interval (Raw-RAG paper C.6, "Retrieval-design
ablations"). Here each setting is a system of the verdicts named ``<parameter>=<value>`` (or
``<system> <parameter>=<value>`` for several systems swept at once, e.g. ``raw-rag final_k=5``).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from memdiag._compare import compare
from memdiag._prepare import prepare
from memdiag._resampling import run_seed
from memdiag.errors import VerdictError
from memdiag._schemes import Scheme
from memdiag._verdicts import MissingQueryPolicy, MissingVerdictPolicy


def _settings(systems: list[str], parameter: str) -> pd.DataFrame:
    pattern = re.compile(rf"^(?:(?P<system>.*?)[\s:@/]+)?{re.escape(parameter)}=(?P<value>\S+)$")
    rows = []
    for name in systems:
        match = pattern.match(name)
        if match:
            raw = match.group("value")
            try:
                value: object = float(raw)
            except ValueError:
                value = raw
            rows.append({"name": name, "system": match.group("system") or "", "value": value})
    if not rows:
        raise VerdictError(f"no system is named '{parameter}=<value>' (systems: {', '.join(systems)}). Name "
                           f"each setting's run '{parameter}=5', '{parameter}=15', ... (or "
                           f"'<system> {parameter}=5').")
    return pd.DataFrame(rows)


def sensitivity(
    df: pd.DataFrame,
    *,
    parameter: str = "final_k",
    default: object = None,
    metric: str = "accuracy",
    scheme: str | Scheme | None = None,
    design: str | None = None,
    n_resamples: int = 20_000,
    seed: int | np.random.Generator = 0,
    confidence_level: float = 0.95,
    correction: str = "holm",
    missing: MissingQueryPolicy = "error",
    verdict_missing: MissingVerdictPolicy = "as-wrong",
    cluster_missing: str = "error",
) -> pd.DataFrame:
    """Difference of every parameter setting from the default, with paired intervals.

    Parameters
    ----------
    df
        Canonical verdicts whose systems are named ``<parameter>=<value>`` or
        ``<system> <parameter>=<value>``; other systems are ignored.
    parameter
        The swept parameter (default ``final_k``).
    default
        The default value (e.g. ``15``); required.
    metric, scheme, design, n_resamples, seed, confidence_level, correction
        As in :func:`memdiag.compare` (pairs against the default, per system).
    missing, verdict_missing
        The alignment policies of SPEC §1.4 (default ``error`` and ``as-wrong``), applied to
        each swept system's settings.
    cluster_missing
        Queries without a cluster label when the others have one: ``"error"`` (default) or
        ``"own"`` (each its own cluster), as in :func:`memdiag.prepare`.

    Returns
    -------
    pandas.DataFrame
        One row per (system, value), sorted: ``system, value, estimate, diff, ci_low, ci_high,
        p, p_adj, n`` in points; the default's own row has diff 0 and no interval. ``attrs``
        carry ``parameter`` and ``default`` (read by :func:`memdiag.plots.sensitivity`).

    Raises
    ------
    VerdictError
        No ``default``; no system named ``<parameter>=<value>``; no run at the default for a
        swept system; what :func:`memdiag.compare` raises (bad verdicts, policies or options).
    SchemeError
        An unknown scheme, or one the data cannot satisfy.
    ValueError
        An unknown ``design``.
    TypeError
        ``seed`` is neither an int nor a :class:`numpy.random.Generator`.

    References
    ----------
    SPEC §8 (the sensitivity figure: each setting compared with the default by §4–§5), SPEC §5.3
    (Holm over one system's settings) and SPEC §4.1 (the intervals); Raw-RAG paper C.6
    ("retrieval-design ablations") and Figure 4 (the final top-k against the default k = 15).

    Examples
    --------
    >>> rows = [(f"final_k={k}", f"q{i}", float(i < n)) for k, n in ((5, 2), (15, 3), (30, 3))
    ...         for i in range(4)]
    >>> df = pd.DataFrame(rows, columns=["system", "query_id", "score"])
    >>> sensitivity(df, default=15, n_resamples=200)[["value", "diff"]]
       value  diff
    0    5.0 -25.0
    1   15.0   0.0
    2   30.0   0.0
    """
    if default is None:
        raise VerdictError(f"sensitivity needs the default value of '{parameter}' (e.g. default=15).")
    seed = run_seed(seed)
    table = _settings(sorted(pd.unique(df["system"])), parameter)
    default_value = float(default) if isinstance(table["value"].iloc[0], float) else str(default)
    blocks = []
    notes: list[str] = []
    for system, group in table.groupby("system", sort=True):
        base = group.loc[group["value"] == default_value, "name"]
        if base.empty:
            raise VerdictError(f"no run with {parameter}={default} for '{system or 'the sweep'}' (settings: "
                               f"{', '.join(map(str, group['value']))}).")
        ref = base.iloc[0]
        runs = prepare(df[df["system"].isin(group["name"])], scheme=scheme, metric=metric, missing=missing,
                       verdict_missing=verdict_missing, design=design, cluster_missing=cluster_missing)
        result = compare(runs, metric=metric, scheme=scheme, pairs="reference",
                         reference=ref, design=design, n_resamples=n_resamples, seed=seed,
                         confidence_level=confidence_level, correction=correction, missing=missing,
                         verdict_missing=verdict_missing)
        value_of = dict(zip(group["name"], group["value"]))
        block = pd.DataFrame({"system": system, "value": result["system_a"].map(value_of),
                              "estimate": result["estimate_a"], "diff": result["diff"],
                              "ci_low": result["ci_low"], "ci_high": result["ci_high"], "p": result["p"],
                              "p_adj": result["p_adj"], "n": result["n"]})
        own = pd.DataFrame({"system": [system], "value": [default_value],
                            "estimate": [result["estimate_b"].iloc[0] if len(result) else np.nan],
                            "diff": [0.0], "ci_low": [np.nan], "ci_high": [np.nan], "p": [np.nan],
                            "p_adj": [np.nan], "n": [result["n"].iloc[0] if len(result) else 0]})
        blocks.append(pd.concat([block, own], ignore_index=True))
        notes.extend(n for n in result.attrs.get("notes", []) if n not in notes)
    out = pd.concat(blocks, ignore_index=True).sort_values(["system", "value"], kind="stable") \
        .reset_index(drop=True)
    if (out["system"] == "").all():
        out = out.drop(columns="system")
    out.attrs = {k: v for k, v in result.attrs.items() if k != "notes"}
    out.attrs.update(function="sensitivity", parameter=parameter, default=default_value, notes=notes)
    return out
