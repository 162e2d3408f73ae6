"""Parameter sensitivity: each setting of a parameter against the default, with paired intervals.

The paper's Figure 4 sweeps the final top-k of retrieval and plots, for each k, the difference
from the default k = 15 with its paired interval (Raw-RAG paper C.6, "Retrieval-design
ablations"). Here each setting is a system of the verdicts named ``<parameter>=<value>`` (or
``<system> <parameter>=<value>`` for several systems swept at once, e.g. ``raw-rag final_k=5``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np
import pandas as pd

from memdiag.analyses.compare import compare
from memdiag.core.kinds import declare, real
from memdiag.core.result import as_result
from memdiag.engine.options import Options, as_options
from memdiag.errors import VerdictError
from memdiag.panel.prepare import Prepared, prepare


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


def _runs(data: pd.DataFrame | Prepared, names: list[str], metric: str, design: str | None) -> Prepared:
    """The runs ``names`` of ``data``, prepared on their own with the data's choices (a
    :class:`~memdiag.Prepared`'s scheme and policies; the defaults for verdicts) — each swept
    system's settings are aligned among themselves, not with the other systems."""
    if isinstance(data, Prepared):
        rows = data.source if data.source is not None else data.frame
        changes = {"systems": None, "metric": metric, **({"design": design} if design is not None else {})}
        return data.reprepare(rows=rows[rows["system"].isin(names)], **changes)
    return prepare(data[data["system"].isin(names)], metric=metric, design=design)
def sensitivity(
    data: pd.DataFrame | Prepared,
    *,
    parameter: str = "final_k",
    default: object = None,
    metric: str = "accuracy",
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """Difference of every parameter setting from the default, with paired intervals.

    Parameters
    ----------
    data
        Canonical verdicts, or :func:`memdiag.prepare` output, whose systems are named
        ``<parameter>=<value>`` or ``<system> <parameter>=<value>``; other systems are ignored.
        The data choices (scheme, missing-data and cluster policies, judges) come from
        :func:`memdiag.prepare` (the defaults for verdicts) and apply to each swept system's
        settings, prepared on their own (:meth:`memdiag.Prepared.reprepare`).
    parameter
        The swept parameter (default ``final_k``).
    default
        The default value (e.g. ``15``); required.
    metric
        As in :func:`memdiag.compare` (pairs against the default, per system).
    options
        :class:`memdiag.Options` (a mapping of its fields, or None for the defaults): reads
        design, inference, n_resamples (at least 1), seed, confidence_level and correction
        (Holm over one system's settings by default), as :func:`memdiag.compare` does.

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
    >>> sensitivity(df, default=15, options={"n_resamples": 200})[["value", "diff"]]
       value  diff
    0    5.0 -25.0
    1   15.0   0.0
    2   30.0   0.0
    """
    if default is None:
        raise VerdictError(f"sensitivity needs the default value of '{parameter}' (e.g. default=15).")
    opts = as_options(options)
    names = list(data.systems) if isinstance(data, Prepared) else sorted(pd.unique(data["system"]))
    table = _settings(names, parameter)
    default_value = float(default) if isinstance(table["value"].iloc[0], float) else str(default)
    blocks = []
    notes: list[str] = []
    for system, group in table.groupby("system", sort=True):
        base = group.loc[group["value"] == default_value, "name"]
        if base.empty:
            raise VerdictError(f"no run with {parameter}={default} for '{system or 'the sweep'}' (settings: "
                               f"{', '.join(map(str, group['value']))}).")
        ref = base.iloc[0]
        runs = _runs(data, list(group["name"]), metric, opts.design)
        result = compare(runs, metric=metric, reference=ref, options=opts)
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
    return as_result(out, declare({"value": real(parameter)}, points=("estimate", "diff", "ci_low", "ci_high"),
                                  p=("p", "p_adj")))
