"""Many systems over many settings: mean ranks, Friedman's test and critical differences (Demšar 2006;
SPEC §10.4).

One job: per-setting scores (:func:`memdiag.overview` output) in, one row per system with its mean
rank and the systems it is not shown to differ from out. Friedman's test and the Wilcoxon tests come
from scipy, the studentized-range quantile of the Nemenyi critical difference from
``scipy.stats.studentized_range``, Holm from :func:`memdiag.adjust`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import stats

from memdiag.core.kinds import real
from memdiag.core.notes import Note
from memdiag.core.provenance import stamp
from memdiag.engine.inference import adjust
from memdiag.engine.options import Options, as_options
from memdiag.errors import VerdictError

__all__ = ["CD_METHODS", "critical_difference", "nemenyi_cd", "nemenyi_q"]

#: How pairs of systems are compared.
CD_METHODS: tuple[str, ...] = ("nemenyi", "wilcoxon-holm")


def nemenyi_q(k: int, alpha: float = 0.05) -> float:
    """q_α of the Nemenyi test: the studentized range quantile at (k, ∞) over √2 (Demšar 2006, Table 5a).

    >>> round(nemenyi_q(4), 3)
    2.569
    """
    if k < 2:
        raise ValueError(f"the Nemenyi test needs at least 2 systems, got {k}.")
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / np.sqrt(2.0))


def nemenyi_cd(k: int, n: int, alpha: float = 0.05) -> float:
    """Nemenyi critical difference of mean ranks: q_α·√(k(k + 1)/(6N)) (Demšar 2006, §3.2.2).

    >>> round(nemenyi_cd(4, 14), 3)       # k = 4 systems over N = 14 settings
    1.254
    """
    return nemenyi_q(k, alpha) * float(np.sqrt(k * (k + 1) / (6.0 * n)))


def critical_difference(
    scores: pd.DataFrame,
    *,
    method: str = "nemenyi",
    higher_is_better: bool = True,
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """Mean ranks of systems across settings, Friedman's test, and which systems do not differ.

    Parameters
    ----------
    scores
        One row per (setting, system) with ``setting, system, estimate`` (:func:`memdiag.overview`
        output). Systems missing from some setting are left out (Friedman needs every system in
        every setting) and named in a note.
    method
        ``nemenyi`` (default: mean ranks differing by at least the critical difference) or
        ``wilcoxon-holm`` (Wilcoxon signed-rank tests of each pair's per-setting scores, Holm-adjusted).
    higher_is_better
        Rank 1 to the highest score (default) or to the lowest.
    options
        :class:`memdiag.Options` (or a mapping of its fields; None: the defaults); reads
        confidence_level only: α = 1 − level (the scores are given, so nothing is resampled).

    Returns
    -------
    pandas.DataFrame
        One row per system, best mean rank first: ``system, mean_rank, n_settings, tied_with`` (the
        systems not shown to differ from it, comma-separated), ``significantly_better_than``.
        ``attrs`` hold ``friedman_statistic``, ``friedman_p``, ``cd`` (Nemenyi; NaN for Wilcoxon),
        ``q_alpha``, ``k`` and ``n_settings``, and, for Wilcoxon, the pairs' ``p_adj`` in the notes.

    Raises
    ------
    VerdictError
        Missing columns, an unknown ``method``, options :class:`memdiag.Options` refuses, fewer than 2 settings or 2
        systems run in every setting, a (setting, system) given twice.

    Notes
    -----
    Ranks are within each setting (ties share the mean rank). Friedman's χ²_F of equal mean ranks
    (scipy; needs k ≥ 3) is reported whatever the method; Demšar (2006) advises the pairwise
    comparisons only after it rejects. The scores of different settings are on different scales,
    which is why ranks (or the signed-rank test) compare them.

    References
    ----------
    SPEC §10.4 (critical differences across settings).
    Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets. JMLR 7, 1–30.
    Benavoli, A., Corani, G. & Mangili, F. (2016). Should we really use post-hoc tests based on
    mean-ranks? JMLR 17, 1–10.

    Examples
    --------
    >>> s = pd.DataFrame({"setting": np.repeat(list("abcdef"), 3), "system": list("xyz") * 6,
    ...                   "estimate": [70, 60, 50, 71, 62, 55, 69, 50, 61, 72, 66, 52, 75, 61, 58, 70, 65, 49]})
    >>> out = critical_difference(s)
    >>> out[["system", "mean_rank", "tied_with"]].round(3).values.tolist()
    [['x', 1.0, 'y'], ['y', 2.167, 'x, z'], ['z', 2.833, 'y']]
    """
    missing = [c for c in ("setting", "system", "estimate") if c not in scores]
    if missing:
        raise VerdictError(f"critical_difference needs setting, system and estimate columns (overview output); "
                           f"missing: {', '.join(missing)}.")
    if method not in CD_METHODS:
        raise VerdictError(f"method must be one of {', '.join(CD_METHODS)}, not {method!r}.")
    confidence_level = as_options(options).confidence_level
    twice = scores.duplicated(["setting", "system"])
    if twice.any():
        first = scores[twice].iloc[0]
        raise VerdictError(f"setting {first['setting']!r} gives system {first['system']!r} more than once.")
    alpha = 1.0 - confidence_level
    wide = scores.pivot(index="setting", columns="system", values="estimate").astype(float)
    notes = []
    partial = [s for s in wide.columns if wide[s].isna().any()]
    if partial:
        notes.append(Note(f"{len(partial)} system(s) not run in every setting left out: {', '.join(map(str, partial))}",
                          code="cd-incomplete-systems", severity="caution", concerns=tuple(map(str, partial))))
        wide = wide.drop(columns=partial)
    n, k = wide.shape
    if n < 2 or k < 2:
        raise VerdictError(f"critical differences need at least 2 settings and 2 systems run in every setting; "
                           f"got {n} settings × {k} systems.")
    ranks = (-wide if higher_is_better else wide).rank(axis=1, method="average")
    mean_rank = ranks.mean(axis=0)
    if k >= 3:
        friedman = stats.friedmanchisquare(*[wide[c].to_numpy() for c in wide.columns])
        chi2, p_friedman = float(friedman.statistic), float(friedman.pvalue)
    else:
        chi2 = p_friedman = float("nan")
        notes.append(Note("Friedman's test needs 3 systems or more", code="cd-no-friedman"))
    names = list(mean_rank.sort_values(kind="stable").index)
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    q = cd = float("nan")
    if method == "nemenyi":
        q, cd = nemenyi_q(k, alpha), nemenyi_cd(k, n, alpha)
        differ = {pair: abs(mean_rank[pair[0]] - mean_rank[pair[1]]) >= cd for pair in pairs}
    else:
        raw = []
        for a, b in pairs:
            d = wide[a] - wide[b]
            raw.append(1.0 if np.all(d == 0) else float(stats.wilcoxon(wide[a], wide[b]).pvalue))
        p_adj = adjust(np.array(raw), method="holm")
        differ = {pair: p <= alpha for pair, p in zip(pairs, p_adj)}
        notes += [Note(f"{a} vs {b}: Wilcoxon p = {p:.3g}, Holm p = {pa:.3g}", code="wilcoxon-pair", concerns=(a, b))
                  for (a, b), p, pa in zip(pairs, raw, p_adj)]
    rows = []
    for s in names:
        tied = [o for o in names if o != s and not differ.get((s, o), differ.get((o, s)))]
        better = [o for o in names if mean_rank[o] > mean_rank[s] and differ.get((s, o), differ.get((o, s)))]
        rows.append({"system": s, "mean_rank": float(mean_rank[s]), "n_settings": n, "tied_with": ", ".join(tied),
                     "significantly_better_than": ", ".join(better)})
    notes.insert(0, Note(f"Friedman χ²_F = {chi2:.3g}, p = {p_friedman:.3g} ({k} systems × {n} settings); "
                         + (f"Nemenyi CD = {cd:.3f} (q = {q:.3f})" if method == "nemenyi"
                            else "Wilcoxon signed-rank, Holm"), code="cd-method"))
    return stamp(pd.DataFrame(rows), "critical_difference", kinds={"mean_rank": real("rank")}, notes=notes, resampled=False, unit="ranks",
                 method=method, confidence_level=confidence_level, friedman_statistic=chi2, friedman_p=p_friedman,
                 cd=cd, q_alpha=q, k=k, n_settings=n)
