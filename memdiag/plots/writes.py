"""Proposed and effective mutation rates per cluster, the Raw-RAG paper's Figure 2 (SPEC §7).

Clusters (conversations) are sorted by their proposed mutation rate; each has its proposed rate
(UPDATE + DELETE decisions over all decisions, orange) and its effective rate (persisted
text-changing updates and persisted deletions over all decisions, blue). Dashed lines give the
decision-weighted overall rates. The rates are those of the write-action audit
(:func:`memdiag.write_audit`); nothing is recomputed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from memdiag.plots.style import ONE_COLUMN, figure_and_axes, require, styled, tidy_axes

#: Series colours of the paper's Figure 2 (Okabe–Ito orange and blue).
PROPOSED_COLOR = "#E69F00"
EFFECTIVE_COLOR = "#0072B2"
#: Up to this many clusters the x axis names them; beyond, it counts them.
MAX_NAMED = 20


@styled
def mutation_rates(write_audit_frame: pd.DataFrame, ax: Axes | None = None) -> Figure:
    """Per-cluster proposed vs effective mutation rates with the decision-weighted means.

    Parameters
    ----------
    write_audit_frame
        One row per cluster with ``cluster, n_decisions, proposed_rate, effective_rate`` (rates
        in points: percent of all emitted decisions, NONE included) and one row ``cluster ==
        "overall"`` carrying the decision-weighted rates.
    ax
        Axes to draw on (default: a new one-column figure).

    Returns
    -------
    matplotlib.figure.Figure
        Clusters in ascending order of proposed rate (ties by cluster name) on x; the y axis in
        percent of decisions. Artist ids: ``writes-proposed``, ``writes-effective`` (the
        series), ``writes-proposed-mean``, ``writes-effective-mean`` (dashed lines).

    Notes
    -----
    proposed = (UPDATE + DELETE) / all decisions; effective = (persisted UPDATEs whose old and
    new text differ + persisted DELETEs) / all decisions; overall = Σ per-cluster counts / Σ
    decisions. SPEC §7; Raw-RAG paper C.2 and Figure 2.

    Examples
    --------
    >>> audit = pd.DataFrame({"cluster": ["c1", "c2", "overall"], "n_decisions": [100, 300, 400],
    ...     "proposed_rate": [5.0, 3.0, 3.5], "effective_rate": [2.0, 1.0, 1.25]})
    >>> fig = mutation_rates(audit)
    >>> [t.get_text() for t in fig.axes[0].get_legend().get_texts()][2]
    'proposed, decision-weighted: 3.50%'
    """
    require(write_audit_frame, ("cluster", "n_decisions", "proposed_rate", "effective_rate"),
            "the write-audit frame")
    is_overall = write_audit_frame["cluster"].astype(str) == "overall"
    if is_overall.sum() != 1:
        raise ValueError("the write-audit frame needs exactly one row with cluster == 'overall' "
                         "(the decision-weighted rates).")
    rates = write_audit_frame[["proposed_rate", "effective_rate"]].to_numpy(dtype=float)
    if np.any((rates < 0) | (rates > 100)):
        raise ValueError("proposed_rate and effective_rate must be points in [0, 100] (md.write_audit output).")
    overall = write_audit_frame[is_overall].iloc[0]
    clusters = write_audit_frame[~is_overall].assign(_name=lambda f: f["cluster"].astype(str)) \
        .sort_values(["proposed_rate", "_name"], kind="stable")
    if clusters.empty:
        raise ValueError("the write-audit frame has no cluster rows besides 'overall'.")
    k = len(clusters)
    fig, ax = figure_and_axes(ax, ONE_COLUMN, 2.6)
    tidy_axes(ax)
    x = np.arange(1, k + 1)
    marker = "o" if k <= 60 else None
    for column, color, name in (("proposed_rate", PROPOSED_COLOR, "proposed"),
                                ("effective_rate", EFFECTIVE_COLOR, "effective")):
        ax.plot(x, clusters[column].to_numpy(dtype=float), color=color, lw=1.0,
                marker=marker, markersize=2.5, label=name, gid=f"writes-{name}")
    for column, color, name in (("proposed_rate", PROPOSED_COLOR, "proposed"),
                                ("effective_rate", EFFECTIVE_COLOR, "effective")):
        ax.axhline(overall[column], color=color, lw=0.9, ls="--",
                   label=f"{name}, decision-weighted: {overall[column]:.2f}%",
                   gid=f"writes-{name}-mean")
    ax.yaxis.set_major_formatter(PercentFormatter(decimals=None))
    ax.set_ylabel("share of all decisions")
    ax.set_ylim(bottom=0)
    ax.set_xlim(0.5, k + 0.5)
    if k <= MAX_NAMED:
        ax.set_xticks(x, clusters["_name"].tolist(), rotation=90)
        ax.set_xlabel("cluster (sorted by proposed rate)")
    else:
        ax.set_xlabel(f"clusters sorted by proposed rate (n = {k})")
    ax.legend(loc="lower left", bbox_to_anchor=(0, 1.01), ncols=2, borderaxespad=0,
              columnspacing=1.0, handlelength=1.8)  # above the axes, never over the data
    return fig
