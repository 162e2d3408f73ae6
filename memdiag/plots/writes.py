"""Write actions per cluster, the Raw-RAG paper's Figure 2 (SPEC §7): the distribution of the
decisions (top) and the proposed and effective mutation rates (bottom).

:func:`write_actions` stacks, per cluster, the shares of ADD, UPDATE, DELETE and NONE decisions
(and malformed ones when there are any), with the pooled distribution as a last bar.

Clusters (conversations) are sorted by their proposed mutation rate; each has two dots with their
intervals: its proposed rate (UPDATE + DELETE decisions over all decisions, orange) and its
effective rate (persisted text-changing updates and persisted deletions over all decisions,
blue), and its number of decisions under its name. Clusters are separate samples, so no line
joins them; dashed lines give the decision-weighted overall rates (all decisions pooled), each
labelled "overall" beside its cluster series in the legend. The rates and intervals are
those of the write-action audit (:func:`memdiag.write_audit`); nothing is recomputed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from memdiag.plots._reading import level, warning_lines
from memdiag.plots.style import (
    ONE_COLUMN,
    TWO_COLUMN,
    at_least,
    figure_and_axes,
    footer,
    plain,
    require,
    styled,
    text_size,
    tidy_axes,
)

#: Colours of the four roles (and malformed labels), Okabe–Ito.
ROLE_COLORS: dict[str, str] = {"add": "#009E73", "update": "#E69F00", "delete": "#D55E00",
                               "none": "#56B4E9", "malformed": "#CC79A7"}
#: Series colours of the paper's Figure 2 (Okabe–Ito orange and blue).
PROPOSED_COLOR = "#E69F00"
EFFECTIVE_COLOR = "#0072B2"
#: Up to this many clusters the x axis names them (with their counts); beyond, it counts them.
MAX_NAMED = 20
#: Horizontal offset of the two dots of a cluster.
_DODGE = 0.16
SERIES: tuple[tuple[str, str, str], ...] = (("proposed_rate", PROPOSED_COLOR, "proposed"),
                                            ("effective_rate", EFFECTIVE_COLOR, "effective"))


def _interval(row: pd.Series, column: str) -> str:
    low, high = row.get(f"{column}_ci_low"), row.get(f"{column}_ci_high")
    return "" if low is None or pd.isna(low) else f" [{plain(low)}, {plain(high)}]"


@styled
def mutation_rates(write_audit_frame: pd.DataFrame, ax: Axes | None = None) -> Figure:
    """Per-cluster proposed vs effective mutation rates as dots with intervals and counts.

    Parameters
    ----------
    write_audit_frame
        One row per cluster with ``cluster, n_decisions, proposed_rate, effective_rate`` (rates
        in points: percent of all emitted decisions, NONE included), their intervals
        ``*_rate_ci_low`` / ``*_rate_ci_high`` when present (drawn as bars), and one row
        ``cluster == "overall"`` carrying the decision-weighted rates.
    ax
        Axes to draw on (default: a new figure, one column wide up to eight clusters, else two).

    Returns
    -------
    matplotlib.figure.Figure
        Clusters in ascending order of proposed rate (ties by cluster name) on x, each named with
        its number of decisions; the y axis in percent of decisions. Artist ids:
        ``writes-proposed``, ``writes-effective`` (the dots), ``writes-proposed-ci``,
        ``writes-effective-ci`` (the interval bars), ``writes-proposed-mean``,
        ``writes-effective-mean`` (dashed lines).

    Raises
    ------
    ValueError
        A frame without ``cluster, n_decisions, proposed_rate, effective_rate``, a rate outside [0,
        100], not exactly one ``overall`` row, or no cluster row besides it.

    Notes
    -----
    proposed = (UPDATE + DELETE) / all decisions; effective = (persisted UPDATEs whose old and
    new text differ + persisted DELETEs) / all decisions; overall = Σ per-cluster counts / Σ
    decisions. SPEC §7; Raw-RAG paper C.2 and Figure 2.

    References
    ----------
    SPEC §7.1 (write-action audit) and SPEC §8 (the mutation-rate figure); Raw-RAG paper C.2
    and Figure 2.
    Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits illustrated
    in the case of the binomial. Biometrika 26(4), 404–413.

    Examples
    --------
    >>> audit = pd.DataFrame({"cluster": ["c1", "c2", "overall"], "n_decisions": [100, 300, 400],
    ...     "proposed_rate": [5.0, 3.0, 3.5], "effective_rate": [2.0, 1.0, 1.25]})
    >>> fig = mutation_rates(audit)
    >>> [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    ['proposed', 'effective', 'overall: 3.5%', 'overall: 1.2%']
    """
    require(write_audit_frame, ("cluster", "n_decisions", "proposed_rate", "effective_rate"),
            "the write-audit frame")
    rates = write_audit_frame[["proposed_rate", "effective_rate"]].to_numpy(dtype=float)
    if np.any((rates < 0) | (rates > 100)):
        raise ValueError("proposed_rate and effective_rate must be points in [0, 100] "
                         "(md.write_audit output).")
    clusters, overall = _sorted_clusters(write_audit_frame)
    k = len(clusters)
    own = ax is None
    fig, ax = figure_and_axes(ax, at_least(ONE_COLUMN if k <= 8 else TWO_COLUMN), 2.8)
    tidy_axes(ax)
    x = np.arange(1, k + 1, dtype=float)
    size = 3.5 if k <= 60 else 1.5
    for (column, color, name), shift in zip(SERIES, (-_DODGE, _DODGE)):
        y = clusters[column].to_numpy(dtype=float)
        if f"{column}_ci_low" in clusters:
            low = clusters[f"{column}_ci_low"].to_numpy(dtype=float)
            high = clusters[f"{column}_ci_high"].to_numpy(dtype=float)
            bars = ax.errorbar(x + shift, y, yerr=[y - low, high - y], fmt="none", ecolor=color,
                               elinewidth=0.9, capsize=1.5 if k <= 60 else 0, capthick=0.9)
            bars.lines[2][0].set_gid(f"writes-{name}-ci")
        ax.plot(x + shift, y, ls="", marker="o", markersize=size, color=color, label=name,
                zorder=3, gid=f"writes-{name}")
    for column, color, name in SERIES:
        ax.axhline(overall[column], color=color, lw=0.9, ls="--", zorder=0,
                   label=f"overall: {plain(overall[column])}%{_interval(overall, column)}",
                   gid=f"writes-{name}-mean")
    ax.yaxis.set_major_formatter(PercentFormatter(decimals=None))
    method = write_audit_frame.attrs.get("interval")
    ax.set_ylabel(f"share of all decisions\n(bars: {level(write_audit_frame)}s"
                  f"{f', {method}' if method else ''})"
                  if "proposed_rate_ci_low" in clusters else "share of all decisions")
    ax.set_ylim(bottom=0)
    ax.set_xlim(0.5, k + 0.5)
    if k <= MAX_NAMED:
        flat = k <= 6 and clusters["_name"].str.len().max() <= 10
        names = [f"{c}\n({n:,})" if flat else f"{c} ({n:,})"
                 for c, n in zip(clusters["_name"], clusters["n_decisions"])]
        ax.set_xticks(x, names, rotation=0 if flat else 90)
        ax.set_xlabel("cluster (decisions), sorted by proposed rate")
    else:
        ax.set_xlabel(f"clusters sorted by proposed rate (n = {k})")
    ax.legend(loc="lower left", bbox_to_anchor=(0, 1.01), ncols=2, borderaxespad=0,
              columnspacing=1.0, handlelength=1.8)  # above the axes, never over the data
    if own:
        footer(fig, warning_lines(write_audit_frame), gid="writes-warnings")
    return fig


def _sorted_clusters(frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.Series]:
    """The cluster rows in ascending order of proposed rate (ties by name) and the overall row."""
    is_overall = frame["cluster"].astype(str) == "overall"
    if is_overall.sum() != 1:
        raise ValueError("the write-audit frame needs exactly one row with cluster == 'overall' "
                         "(the decision-weighted rates).")
    clusters = frame[~is_overall].assign(_name=lambda f: f["cluster"].astype(str)) \
        .sort_values(["proposed_rate", "_name"], kind="stable")
    if clusters.empty:
        raise ValueError("the write-audit frame has no cluster rows besides 'overall'.")
    return clusters, frame[is_overall].iloc[0]


@styled
def write_actions(write_audit_frame: pd.DataFrame, ax: Axes | None = None) -> Figure:
    """The distribution of write actions per cluster and pooled: shares of ADD, UPDATE, DELETE and
    NONE decisions as stacked bars.

    Parameters
    ----------
    write_audit_frame
        :func:`memdiag.write_audit` output: one row per cluster and one ``cluster == "overall"``
        with ``n_decisions, n_add, n_update, n_delete, n_none, n_malformed, proposed_rate``.
    ax
        Axes to draw on (default: a new figure, one column wide up to eight clusters, else two).

    Returns
    -------
    matplotlib.figure.Figure
        Clusters in the order of :func:`mutation_rates` (ascending proposed rate), then the pooled
        bar ``overall``; each cluster named with its number of decisions. Artist ids:
        ``actions-<role>`` (one bar container per role: add, update, delete, none, malformed).

    Raises
    ------
    ValueError
        A frame without ``cluster, n_decisions, proposed_rate, n_add, n_update, n_delete, n_none``,
        not exactly one ``overall`` row, or no cluster row besides it.

    Notes
    -----
    share of a role = n_role / n_decisions, in percent; malformed decisions (labels that are no
    role) are drawn when there are any, so the bars reach 100%. Raw-RAG paper C.2, Figure 2
    (top); SPEC §7.

    References
    ----------
    SPEC §7.1 (write-action audit) and SPEC §8 (the write-action figure); Raw-RAG paper C.2,
    D.3.8 and Figure 2 (top).

    Examples
    --------
    >>> audit = pd.DataFrame({"cluster": ["c1", "c2", "overall"], "n_decisions": [10, 30, 40],
    ...     "n_add": [5, 20, 25], "n_update": [2, 3, 5], "n_delete": [1, 0, 1],
    ...     "n_none": [2, 7, 9], "n_malformed": [0, 0, 0], "proposed_rate": [30.0, 10.0, 15.0]})
    >>> fig = write_actions(audit)
    >>> [t.get_text() for t in fig.axes[0].get_xticklabels()]
    ['c2\\n(30)', 'c1\\n(10)', 'overall\\n(40)']
    """
    roles = ["add", "update", "delete", "none"]
    require(write_audit_frame, ("cluster", "n_decisions", "proposed_rate",
                                *(f"n_{r}" for r in roles)), "the write-audit frame")
    clusters, overall = _sorted_clusters(write_audit_frame)
    rows = pd.concat([clusters, overall.to_frame().T.assign(_name="overall")], ignore_index=True)
    if "n_malformed" in rows and (rows["n_malformed"].astype(float) > 0).any():
        roles.append("malformed")
    k = len(rows)
    own = ax is None
    fig, ax = figure_and_axes(ax, at_least(ONE_COLUMN if k <= 9 else TWO_COLUMN), 2.6)
    tidy_axes(ax)
    x = np.arange(k, dtype=float)
    x[-1] += 0.5  # the pooled bar stands apart
    n = rows["n_decisions"].to_numpy(dtype=float)
    bottom = np.zeros(k)
    for role in roles:
        share = 100 * rows[f"n_{role}"].to_numpy(dtype=float) / n
        ax.bar(x, share, bottom=bottom, width=0.7, color=ROLE_COLORS[role], label=role.upper(),
               gid=f"actions-{role}")
        bottom += share
    ax.yaxis.set_major_formatter(PercentFormatter(decimals=None))
    ax.set_ylim(0, 100)
    ax.set_xlim(x[0] - 0.6, x[-1] + 0.6)
    ax.set_ylabel("share of all decisions")
    if k <= MAX_NAMED + 1:
        flat = k <= 7 and rows["_name"].str.len().max() <= 10
        names = [f"{c}\n({int(m):,})" if flat else f"{c} ({int(m):,})"
                 for c, m in zip(rows["_name"], rows["n_decisions"])]
        ax.set_xticks(x, names, rotation=0 if flat else 90)
        ax.set_xlabel("cluster (decisions), sorted by proposed rate")
    else:
        ax.set_xticks([x[-1]], [f"overall ({int(n[-1]):,})"])
        ax.set_xlabel(f"clusters sorted by proposed rate (n = {k - 1})")
    entry = max(text_size(role.upper())[0] for role in roles) + 0.45  # with handle and gap
    ax.legend(loc="lower left", bbox_to_anchor=(0, 1.01), borderaxespad=0, columnspacing=1.0,
              handlelength=1.2,
              ncols=max(1, min(len(roles), int((fig.get_size_inches()[0] - 0.3) // entry))))
    if own:
        footer(fig, warning_lines(write_audit_frame), gid="writes-warnings")
    return fig
