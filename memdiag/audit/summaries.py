"""Audit a paper from its published summaries alone: a YAML file of numbers and claims -> one
verdict per check (SPEC §7.7).

One job: run each check of a summaries file (read by :func:`memdiag.read_summaries`,
:mod:`memdiag.io.summaries`; format below and in docs/spec.md §7.7) (:func:`audit_summaries`) with the functions of
:mod:`memdiag.audit.granularity`, :mod:`memdiag.audit.published` and
:func:`memdiag.check_aggregate`. No verdicts are read: these are the checks a reader can run on a
table, a net count and a p-value.

The file::

    source: where the numbers come from
    alpha: 0.05                       # optional
    benchmarks:                       # sizes and clusters the checks refer to by name
      LongMemEval-s: {n: 500}
      PersonaMem-v2: {n: 934, clusters: 40}          # or cluster_sizes: [...]
    checks:
      - id: simplemem-net             # unique
        check: mcnemar                # granularity | mcnemar | power | floor | family | first | aggregate
        benchmark: LongMemEval-s
        claim: "SimpleMem has a net loss of 20"       # the words checked, quoted
        claimed: significant          # optional: significant | not significant
        net: -20
        tax: 12.0

Numbers keep the decimals they were written with (``12.0`` has one), which the granularity and
floor checks need.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from pathlib import Path

import pandas as pd

from memdiag.audit.aggregate import check_aggregate
from memdiag.audit.granularity import granularity
from memdiag.audit.published import (
    mcnemar_bounds,
    p_at_floor,
    summary_power,
    survives_family,
)
from memdiag.core.notes import Note
from memdiag.core.result import as_result
from memdiag.errors import VerdictError
from memdiag.io.summaries import read_summaries

__all__ = ["CHECKS", "SUMMARY_VERDICTS", "audit_summaries"]

#: The verdicts of a check: the published number or claim is consistent with its summaries, the
#: summaries cannot decide (it depends on an unpublished number), something is wrong, or the check
#: reports a number with no claim to hold it against.
SUMMARY_VERDICTS: tuple[str, ...] = ("consistent", "undetermined", "flagged", "reported")


# --------------------------------------------------------------------------------------------
# the checks: each returns (verdict, finding, detail table)
# --------------------------------------------------------------------------------------------
def _text(value: object) -> str:
    return getattr(value, "text", None) or f"{value}"


def _size(check: Mapping, bench: Mapping) -> int:
    n = check.get("n", bench.get("n"))
    if n is None:
        raise VerdictError("needs n (the questions): give it in the check or its benchmark")
    return int(n)


def _clusters(check: Mapping, bench: Mapping) -> dict:
    sizes = check.get("cluster_sizes", bench.get("cluster_sizes"))
    count = check.get("clusters", bench.get("clusters"))
    return {"cluster_sizes": sizes, "n_clusters": None if sizes is not None else count}


def _claimed(check: Mapping) -> str | None:
    claimed = check.get("claimed")
    if claimed not in (None, "significant", "not significant"):
        raise VerdictError(f"claimed must be 'significant' or 'not significant', got {claimed!r}")
    return claimed


def _against(claimed: str | None, outcome: str) -> str:
    """A check's verdict from what the summaries imply (``significant``, ``not significant``,
    ``depends``) and what was claimed."""
    if claimed is None:
        return "reported"
    if outcome == "depends":
        return "undetermined"
    return "consistent" if outcome == claimed else "flagged"


def _denominators(check: Mapping, bench: Mapping) -> int | list[int]:
    """The n of a granularity check, or the denominators to try (``denominators: [100, 164]`` or
    ``{from: 1, to: 694}``)."""
    tried = check.get("denominators")
    if tried is None:
        return _size(check, bench)
    if isinstance(tried, Mapping):
        return list(range(int(tried["from"]), int(tried["to"]) + 1))
    return [int(n) for n in tried]


def _granularity(check: Mapping, bench: Mapping, alpha: float):
    table = granularity(check["value"], _denominators(check, bench), decimals=check.get("decimals"),
                        difference=bool(check.get("difference", False)))
    row = table.iloc[0]
    if "denominators" in check:
        fits = table.loc[table["consistent"], "n"].tolist()
        return ("reported", f"{_text(check['value'])} is possible with {len(fits)} of the {len(table)} denominators "
                            f"tried (smallest: {', '.join(map(str, fits[:5])) or 'none'})", table)
    what = "net count" if check.get("difference") else "count"
    if row["consistent"]:
        counts = ", ".join(str(k) for k in row["counts"])
        return "consistent", f"{_text(check['value'])} of {row['n']} = {what} {counts}", table
    return ("flagged", f"no whole {what} of {row['n']} gives {_text(check['value'])} (nearest achievable "
                       f"{row['closest']:.{max(row['decimals'], 2)}f}): not one run's share of {row['n']} "
                       "questions — a mean over runs or judge calls, another denominator, or a typo", table)


def _mcnemar(check: Mapping, bench: Mapping, alpha: float):
    family = int(check.get("family", 1))
    table = mcnemar_bounds(_size(check, bench), net=check.get("net"), diff=check.get("diff"),
                           accuracy_a=check.get("accuracy_a"), accuracy_b=check.get("accuracy_b"),
                           benefit=check.get("benefit"), tax=check.get("tax"), neither=check.get("neither"),
                           alpha=alpha, family=family, **_clusters(check, bench))
    a = table.attrs
    level = alpha / family
    shown = f"α = {alpha:g}" + (f"/{family}" if family > 1 else "")
    if len(table) == 1:
        row = table.iloc[0]
        finding = (f"b = {row['benefit']}, c = {row['tax']} of {a['n']}: exact McNemar p = {row['p']:.3g} "
                   f"({'significant' if row['significant'] else 'not significant'} at {shown})")
    elif a["verdict"] == "depends on the discordance":
        finding = (f"exact McNemar p from {a['p_min']:.2g} to {a['p_max']:.2g} over the {len(table)} compatible "
                   f"tables: significant at {shown} only if the systems disagree on at most "
                   f"{a['max_significant_discordant']} of {a['n']} questions "
                   f"({100 * a['max_significant_discordant'] / a['n']:.1f}%)")
    else:
        spread = (f"p = {a['p_min']:.2g} for every one" if math.isclose(a["p_min"], a["p_max"], rel_tol=1e-9)
                  else f"p from {a['p_min']:.2g} to {a['p_max']:.2g} over each")
        finding = (f"exact McNemar {spread} of the {len(table)} compatible tables: {a['verdict']} at {shown} "
                   "whatever the discordance")
    if "p_design_min" in a:   # clustered: the design's test decides (SPEC §4.1)
        low, high = a["p_design_min"], a["p_design_max"]
        finding += (f"; the design's t test with {a['n_clusters']} clusters gives p from {low:.2g} to {high:.2g} "
                    "even without intra-cluster correlation")
    else:
        low, high = a["p_min"], a["p_max"]
    outcome = "not significant" if low > level else "significant" if high <= level else "depends"
    return _against(_claimed(check), outcome), finding, table


def _power(check: Mapping, bench: Mapping, alpha: float):
    options = {k: check[k] for k in ("discordance", "icc", "power") if k in check}
    table = summary_power(_size(check, bench), float(check["diff"]), alpha=alpha, family=int(check.get("family", 1)),
                          **_clusters(check, bench), **options)
    parts = [f"ψ {r['discordance']:g}%, icc {r['icc']:g}: detects {r['detectable_effect']:.2f} points, power "
             f"{r['power']:.2f} at {r['diff']:+g}" for _, r in table.iterrows()]
    return "reported", f"{table['test'].iloc[0]}: " + "; ".join(parts), table


def _floor(check: Mapping, bench: Mapping, alpha: float):
    table = p_at_floor(check["p"], n_resamples=check.get("n_resamples"), sides=int(check.get("sides", 2)))
    if table.empty:
        return "consistent", f"p = {_text(check['p'])} is no multiple of a bootstrap floor tried", table
    row = table.iloc[0]
    m, sides, b = int(row["multiple"]), int(row["sides"]), int(row["n_resamples"])
    what = ("the floor" if m == 1 else
            f"{m} × the floor (Holm's first step over a family of {m}, a later step of a larger one, or Bonferroni)")
    finding = (f"p = {_text(check['p'])} = {what} {sides}/({b:,} + 1) = {row['floor']:.5g} of a bootstrap test with "
               f"no replicate as extreme as the data: a bound (the true p is smaller), not a measurement")
    if len(table) > 1:
        finding += f"; {len(table) - 1} other (B, multiple) fit too"
    return "flagged", finding, table


def _family(check: Mapping, bench: Mapping, alpha: float):
    table = survives_family(check["p"], family=check.get("family"), alpha=alpha,
                            correction=check.get("correction", "holm"))
    row = table.iloc[0 if "index" not in check else int(check["index"])]
    outcome = {"survives": "significant", "does not survive": "not significant"}.get(row["verdict"], "depends")
    finding = (f"p = {row['p']:.3g} in a family of {row['family']}: adjusted p in [{row['p_adj_low']:.3g}, "
               f"{row['p_adj_high']:.3g}], {row['verdict']} at α = {alpha:g}")
    return _against(_claimed(check) or "significant", outcome), finding, table


def _first(check: Mapping, bench: Mapping, alpha: float):
    scores = {str(k): v for k, v in check["accuracies"].items()}
    order = sorted(scores, key=lambda s: float(scores[s]), reverse=True)
    if len(order) < 2:
        raise VerdictError("first needs the accuracies of at least two systems")
    leader, runner = order[0], order[1]
    pair = {**check, "accuracy_a": scores[leader], "accuracy_b": scores[runner], "claimed": "significant"}
    verdict, finding, table = _mcnemar(pair, bench, alpha)
    return verdict, f"{leader} ({_text(scores[leader])}) vs the runner-up {runner} ({_text(scores[runner])}): " \
        + finding, table


def _aggregate(check: Mapping, bench: Mapping, alpha: float):
    if "weighting" in check or "counts" in check:       # a stated weighting (MEME's macro-average, ...)
        table = check_aggregate(check["scores"], check.get("counts"), check["overall"],
                                weighting=check.get("weighting", "question"),
                                tolerance=float(check.get("tolerance", 0.01)))
        row = table.iloc[0]
        finding = (f"{row['weighting']} weighting gives {row['recomputed']:.3f} for the published "
                   f"{_text(check['overall'])}: {row['status']}")
        return ("consistent" if row["consistent"] else "flagged"), finding, table
    table = check_aggregate(check["scores"], reported_overall=check["overall"],
                            convention=check.get("convention", "infer"),
                            tolerance=float(check.get("tolerance", 0.01)))
    named = table.attrs["consistent_conventions"]
    hits = table[table["consistent"]]
    if hits.empty:
        return "flagged", f"no convention or assignment of the counts reproduces {_text(check['overall'])}", table
    finding = "; ".join(table.attrs["notes"][1:len(hits) + 1])
    stated = check.get("stated_convention")
    if stated is not None and stated not in named:
        given = table[table["convention"].fillna("").str.split(", ").map(lambda names: stated in names)]
        value = f" ({given['recomputed'].iloc[0]:.2f})" if len(given) else ""
        return "flagged", (f"the stated {stated} convention does not give {_text(check['overall'])}{value}, but the "
                           f"numbers are {finding}"), table
    return "consistent", finding, table


#: Check name -> the function running it.
CHECKS: dict[str, Callable] = {"granularity": _granularity, "mcnemar": _mcnemar, "power": _power, "floor": _floor,
                               "family": _family, "first": _first, "aggregate": _aggregate}


def audit_summaries(source: str | Path | Mapping, *, alpha: float | None = None) -> pd.DataFrame:
    """Run every check of a summaries file: what a paper's published numbers allow (SPEC §7.7).

    Parameters
    ----------
    source
        A summaries YAML file (format in the module docstring and docs/spec.md §7.7), or the
        same as a mapping.
    alpha
        Significance level (default: the file's ``alpha``, else 0.05).

    Returns
    -------
    pandas.DataFrame
        One row per check: ``id, check, benchmark, claim, verdict`` (:data:`SUMMARY_VERDICTS`)
        ``, finding`` (one line with the numbers). ``attrs["details"]`` maps each id to its full
        table (the compatible counts, tables, powers, floors), ``attrs["source"]`` the file's
        source line. A check the numbers cannot run (a missing field, an impossible table) gets
        the verdict ``flagged`` with the reason.

    Raises
    ------
    VerdictError
        A summaries file :func:`memdiag.read_summaries` refuses, or ``alpha`` outside (0, 1). (A check
        that cannot run is not an error: its verdict is ``flagged``.)

    References
    ----------
    SPEC §7.7 (audit from published summaries: every check and its verdicts); Memory Tax review
    and Raw-RAG paper (the published numbers of the worked examples).
    Brown, N. J. L. & Heathers, J. A. J. (2017). The GRIM test: a simple technique detects
    numerous anomalies in the reporting of results in psychology. Social Psychological and
    Personality Science 8(4), 363–369.
    McNemar, Q. (1947). Note on the sampling error of the difference between correlated
    proportions or percentages. Psychometrika 12(2), 153–157.
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian
    Journal of Statistics 6(2), 65–70.

    Examples
    --------
    >>> out = audit_summaries({"benchmarks": {"LongMemEval-s": {"n": 500}}, "checks": [
    ...     {"id": "tax", "check": "granularity", "benchmark": "LongMemEval-s", "value": "12.0"},
    ...     {"id": "net", "check": "mcnemar", "benchmark": "LongMemEval-s", "net": -20, "tax": "12.0",
    ...      "claimed": "significant"}]})
    >>> out[["id", "verdict"]].values.tolist()
    [['tax', 'consistent'], ['net', 'flagged']]
    >>> print(out.loc[1, "finding"])
    b = 40, c = 60 of 500: exact McNemar p = 0.0569 (not significant at α = 0.05)
    """
    spec = read_summaries(source)
    level = float(alpha if alpha is not None else spec["alpha"])
    if not 0 < level < 1:
        raise VerdictError(f"alpha must lie strictly between 0 and 1, got {level!r}.")
    rows, details = [], {}
    for check in spec["checks"]:
        bench = spec["benchmarks"].get(check.get("benchmark"), {}) or {}
        try:
            verdict, finding, table = CHECKS[check["check"]](check, bench, level)
        except (VerdictError, KeyError, TypeError, ValueError) as error:
            missing = f"needs the field {error}" if isinstance(error, KeyError) else str(error).rstrip(".")
            verdict, finding, table = "flagged", f"cannot run: {missing}", None
        details[str(check["id"])] = table
        rows.append({"id": str(check["id"]), "check": check["check"], "benchmark": check.get("benchmark"),
                     "claim": check.get("claim"), "verdict": verdict, "finding": finding})
    out = pd.DataFrame(rows, columns=["id", "check", "benchmark", "claim", "verdict", "finding"])
    counts = out["verdict"].value_counts()
    out.attrs = {"function": "audit_summaries", "source": spec["source"], "alpha": level, "details": details,
                 "notes": ([Note(f"source: {spec['source']}", code="source")] if spec["source"] else [])
                 + [Note(", ".join(f"{counts.get(v, 0)} {v}" for v in SUMMARY_VERDICTS if counts.get(v, 0)),
                         code="verdict-counts")]}
    return as_result(out)
