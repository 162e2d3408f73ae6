"""Inference across benchmark × model settings: each system's paired difference from the reference in
every setting, pooled by random-effects meta-analysis, and the number of settings in which it
beats the reference that a paper may claim (SPEC §10.1, §10.2).

:func:`setting_differences` runs :func:`memdiag.compare` against the reference in every setting
(each under its own scheme, design and interval, as :func:`memdiag.overview`);
:func:`pool_settings` pools those differences per system
(:func:`memdiag.engine.inference.meta.pool_effects`) and counts the settings with the partial-conjunction
procedure (:func:`memdiag.engine.inference.replicability.replicability_count`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from memdiag.analyses.compare import compare
from memdiag.analyses.overview import _prepared, _settings
from memdiag.core.kinds import PERCENT, declare, real
from memdiag.core.notes import Note
from memdiag.core.provenance import stamp
from memdiag.engine.inference.meta import INTERVALS, TAU2_METHODS, pool_effects
from memdiag.engine.inference.replicability import (
    PC_METHODS,
    one_sided,
    partial_conjunction,
    replicability_count,
)
from memdiag.engine.options import Options, as_options
from memdiag.errors import VerdictError
from memdiag.panel.prepare import Prepared

__all__ = ["pool_settings", "setting_differences"]

#: Columns :func:`pool_settings` needs in its input.
NEEDED: tuple[str, ...] = ("setting", "system", "reference", "diff", "se", "p")
#: Two settings whose question ids overlap in at least this share of the smaller one ask the same questions.
SHARED = 0.5


def _question_groups(ids: dict[str, set[str]]) -> dict[str, str]:
    """Each setting's question group: settings sharing at least :data:`SHARED` of the smaller one's
    question ids are joined (transitively), and the group is named by its first setting."""
    names = list(ids)
    group = {name: name for name in names}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            small = min(len(ids[a]), len(ids[b]))
            if small and len(ids[a] & ids[b]) >= SHARED * small and group[a] != group[b]:
                old, new = group[b], group[a]
                group = {name: new if g == old else g for name, g in group.items()}
    return group


def setting_differences(
    data: pd.DataFrame | Mapping[str | tuple[str, str], pd.DataFrame | Prepared],
    *,
    reference: str,
    metric: str = "accuracy",
    schemes: Mapping[str, str | None] | None = None,
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """Every system's paired difference from the reference in every benchmark × model setting.

    Parameters
    ----------
    data
        As in :func:`memdiag.overview`: verdicts with a ``benchmark`` and/or ``model`` column, or a
        mapping ``{benchmark: verdicts}`` / ``{(benchmark, model): verdicts}`` (a
        :func:`memdiag.prepare` output as the value keeps its own scheme and data choices;
        :func:`memdiag.analyses.overview.prepare_settings` prepares every setting with the same choices).
    reference
        The system every other is compared with (usually raw-history RAG).
    metric
        As in :func:`memdiag.compare`.
    schemes
        ``{benchmark: scheme}`` overriding :func:`memdiag.analyses.overview.scheme_for`.
    options
        :class:`memdiag.Options` (or a mapping of its fields; None: the defaults), as in
        :func:`memdiag.compare`, for every setting: reads design (None: each setting's scheme and
        clusters), inference, n_resamples (at least 1), seed and confidence_level; correction
        only adjusts compare's ``p_adj``, which is not reported here.

    Returns
    -------
    pandas.DataFrame
        One row per (setting, system other than the reference): ``benchmark, model, setting,
        system, reference, diff, se, ci_low, ci_high`` (points, system − reference), ``p`` (two-sided,
        the setting's own test), ``p_greater`` (one-sided: the system beats the reference), ``n,
        design, method, test``, ``questions`` (the setting's question group: settings sharing at
        least half of the smaller one's question ids get the first one's name, and a
        ``settings-share-questions`` warning; pass ``clusters="questions"`` to
        :func:`pool_settings`). Settings without the reference are left out and counted in the
        notes.

    Raises
    ------
    VerdictError
        Data :func:`memdiag.overview` cannot split into settings, the reference in no setting, or
        what :func:`memdiag.compare` raises for a setting.
    SchemeError
        A scheme a setting's data cannot satisfy.

    References
    ----------
    SPEC §10.1 (per-setting differences and pooling), SPEC §8 (settings) and SPEC §4.1 (each
    setting's interval).

    Examples
    --------
    >>> import memdiag as md
    >>> runs = {(b, "m"): md.simulate(n_queries=200, systems=("rag", "mem"), accuracy={"rag": 0.6, "mem": p},
    ...                               reference="rag", seed=s) for b, p, s in (("a", 0.7, 1), ("b", 0.65, 2))}
    >>> out = md.setting_differences(runs, reference="rag", options={"n_resamples": 500})
    >>> out[["setting", "system", "reference"]].values.tolist()
    [['a · m', 'mem', 'rag'], ['b · m', 'mem', 'rag']]
    """
    opts = as_options(options)
    n_resamples, seed, confidence_level, inference = (opts.resampled("setting_differences"), opts.seed,
                                                      opts.confidence_level, opts.inference)
    parts, skipped, ids = [], [], {}
    for benchmark, model, frame in _settings(data):
        name = " · ".join(v for v in (benchmark, model) if v)
        systems = (frame.panel.systems if isinstance(frame, Prepared) else
                   pd.unique(frame["system"].astype(str)) if "system" in frame else ())
        if reference not in set(systems):
            skipped.append(name)
            continue
        prepared = _prepared(benchmark, frame, schemes, metric)
        ids[name] = set(map(str, prepared.panel.query_ids))
        out = compare(prepared, metric=metric, reference=reference, options=opts)
        part = pd.DataFrame({
            "benchmark": benchmark, "model": model, "setting": name, "system": out["system_a"].astype(str),
            "reference": out["system_b"].astype(str), "diff": out["diff"], "se": out["se"], "ci_low": out["ci_low"],
            "ci_high": out["ci_high"], "p": out["p"], "p_greater": one_sided(out["p"], out["diff"]),
            "n": out["n"], "design": out["design"], "method": out["method"], "test": out["test"]})
        parts.append(part)
    if not parts:
        raise VerdictError(f"the reference {reference!r} is in no setting: name a system every setting ran.")
    result = pd.concat(parts, ignore_index=True)
    groups = _question_groups(ids)
    result["questions"] = result["setting"].map(groups)
    notes = []
    for label in dict.fromkeys(groups.values()):
        members = [name for name, g in groups.items() if g == label]
        if len(members) > 1:
            notes.append(Note(f"settings {', '.join(members)} share at least {SHARED:.0%} of their question ids: if "
                              "they ask the same questions they are not independent; pool them with "
                              "clusters='questions' (memdiag across --clusters questions) or keep one of them",
                              code="settings-share-questions", severity="warning", concerns=tuple(members)))
    if skipped:
        notes.append(Note(f"{len(skipped)} setting(s) without the reference {reference} left out: {', '.join(skipped)}",
                          code="settings-without-reference", severity="caution", concerns=tuple(skipped)))
    return stamp(result, "setting_differences", kinds=declare(points=("diff", "se", "ci_low", "ci_high"),
                                                              p=("p", "p_greater")), notes=notes, resampled=True, unit="points", metric=metric,
                 n_resamples=n_resamples, seed=seed, confidence_level=confidence_level, inference=inference)


def pool_settings(
    differences: pd.DataFrame,
    *,
    tau2: str = "reml",
    interval: str = "auto",
    clusters: str | None = None,
    combine: str = "bonferroni",
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """Pool each system's per-setting differences and count the settings where it beats the reference.

    Parameters
    ----------
    differences
        :func:`memdiag.setting_differences` output, or any frame with ``setting, system, reference,
        diff, se, p`` (points; ``p`` two-sided) and optionally ``p_greater``.
    tau2
        ``reml`` (default; Paule–Mandel, named in ``tau2_method`` and a note, if REML does not
        converge), ``pm``, ``dl`` (truncated at 0) or ``fixed``
        (:func:`memdiag.engine.inference.meta.pool_effects`).
    interval
        ``auto`` (Hartung–Knapp–Sidik–Jonkman with the Knapp–Hartung ad hoc floor at every number of
        settings), ``hksj`` (the same) or ``z`` (normal).
    clusters
        A column of ``differences`` naming what settings share (e.g. ``benchmark``: the same
        questions; or a reference-run id): settings with the same value are treated as correlated
        and the interval is the CR2 robust one (Hedges, Tipton & Johnson 2010; Tipton 2015). Without
        it, settings with the same ``questions`` group (:func:`setting_differences`) pooled as
        independent get a ``settings-share-questions`` warning.
    combine
        How the partial-conjunction p-values combine the settings: ``bonferroni`` (default; valid
        under any dependence, the count is Holm's), ``simes`` (positive dependence) or ``fisher``
        (independent settings only).
    options
        :class:`memdiag.Options` (or a mapping of its fields; None: the defaults); reads
        confidence_level only: the level of the intervals, and α = 1 − level for the counts (the
        differences are already computed, so nothing is resampled).

    Returns
    -------
    pandas.DataFrame
        One row per (system, reference): ``n_settings`` (with a difference), ``k`` (pooled: a
        setting with se 0 cannot be weighted and is left out, counted in ``n_excluded``),
        ``estimate, se, ci_low, ci_high, df, p`` (the pooled mean difference, points; ``df`` NaN for
        the normal interval; ``p`` NaN, with a warning, when the standard error is 0 or NaN),
        ``interval, tau2_method, tau2, tau, i2, q, q_p, pi_low, pi_high`` (prediction interval
        for a new setting: NaN with a note for k < 3, a caution for k < 10), ``fixed_estimate,
        fixed_ci_low, fixed_ci_high``, ``beats_in`` (û: the system beats the reference in
        at least û of the N settings, family-wise α),
        ``p_beats_one`` (p^{1/N}: in none), ``beats_settings`` (the û settings with the smallest
        one-sided p, the ones Holm identifies under Bonferroni), ``worse_in`` (the same count for
        the reference beating the system). Pooled columns are NaN with fewer than 2 settings.

    Raises
    ------
    VerdictError
        A frame without the needed columns, a missing ``clusters`` column, an unknown ``tau2``,
        ``interval`` or ``combine``, options :class:`memdiag.Options` refuses.

    Notes
    -----
    The pooled mean answers "how much, on average over settings like these"; τ and the prediction
    interval say how much a new setting may differ. ``beats_in`` answers "in how many" with a valid
    test: H^{u/N}: fewer than u settings where the system is better, rejected in order u = 1, 2, …
    (Benjamini & Heller 2008; Dror et al. 2017). A count of settings where the system merely
    scores higher is no test.

    References
    ----------
    SPEC §10.1 (pooling), SPEC §10.2 (the u-of-N count).

    Examples
    --------
    >>> d = pd.DataFrame({"setting": list("abcd"), "system": "mem", "reference": "rag",
    ...                   "diff": [4.0, 6.0, 5.0, -1.0], "se": [1.5, 2.0, 1.8, 2.2],
    ...                   "p": [0.008, 0.003, 0.006, 0.65]})
    >>> out = pool_settings(d)
    >>> out[["system", "k", "interval", "beats_in", "worse_in"]].to_dict("records")
    [{'system': 'mem', 'k': 4, 'interval': 'hksj', 'beats_in': 3, 'worse_in': 0}]
    """
    missing = [c for c in NEEDED if c not in differences]
    if missing:
        raise VerdictError(f"pool_settings needs the columns {', '.join(NEEDED)} (setting_differences output); "
                           f"missing: {', '.join(missing)}.")
    if clusters is not None and clusters not in differences:
        raise VerdictError(f"clusters names the column {clusters!r}, which the differences do not have.")
    for name, value, allowed in (("tau2", tau2, TAU2_METHODS), ("interval", interval, INTERVALS),
                                 ("combine", combine, PC_METHODS)):
        if value not in allowed:
            raise VerdictError(f"{name} must be one of {', '.join(allowed)}, not {value!r}.")
    confidence_level = as_options(options).confidence_level
    alpha = 1.0 - confidence_level
    rows, notes = [], []
    for (system, reference), part in differences.groupby(["system", "reference"], sort=False):
        part = part.reset_index(drop=True)
        greater = np.asarray(part["p_greater"] if "p_greater" in part else one_sided(part["p"], part["diff"]), float)
        less = np.asarray(one_sided(part["p"], -part["diff"]), float)
        undefined = ~np.isfinite(greater) | ~np.isfinite(less)
        if undefined.any():          # a setting without a p-value supports no claim: it counts as p = 1
            left = part.loc[undefined, "setting"].astype(str).tolist()
            notes.append(Note(f"{system}: {len(left)} setting(s) without a p-value counted as p = 1 in the u-of-N "
                              f"counts: {', '.join(left)}", code="setting-without-p", severity="caution",
                              concerns=(str(system), *left)))
            greater, less = np.where(undefined, 1.0, greater), np.where(undefined, 1.0, less)
        u = replicability_count(greater, alpha=alpha, method=combine)
        order = np.argsort(greater, kind="stable")
        row = {"system": system, "reference": reference, "n_settings": len(part),
               "beats_in": u, "p_beats_one": float(partial_conjunction(greater, method=combine)[0]),
               "beats_settings": ", ".join(part["setting"].iloc[order[:u]].astype(str)),
               "worse_in": replicability_count(less, alpha=alpha, method=combine)}
        usable = part[np.isfinite(part["se"]) & (part["se"] > 0) & np.isfinite(part["diff"])]
        row["n_excluded"] = len(part) - len(usable)
        if row["n_excluded"]:
            left = part.loc[~part.index.isin(usable.index), "setting"].astype(str).tolist()
            notes.append(Note(f"{system}: {row['n_excluded']} setting(s) with no standard error not pooled: "
                              f"{', '.join(left)}", code="setting-not-pooled", severity="caution",
                              concerns=(str(system), *left)))
        row["k"] = len(usable)
        if len(usable) >= 2:
            if clusters is None and "questions" in usable and usable["questions"].duplicated().any():
                shared = usable.loc[usable["questions"].duplicated(keep=False), "setting"].astype(str).tolist()
                notes.append(Note(f"{system}: settings {', '.join(shared)} share their questions but are pooled as "
                                  "independent: the interval is too narrow; pass clusters='questions' or keep one "
                                  "setting per question set", code="settings-share-questions", severity="warning",
                                  concerns=(str(system), *shared)))
            labels = usable[clusters].astype(str).to_numpy() if clusters is not None else None
            if labels is not None and len(set(labels)) < 2:
                raise VerdictError(f"{system}: the settings fall in one {clusters!r} cluster; the robust variance "
                                   f"needs at least 2 (keep one setting of the cluster, or drop clusters=).")
            r = pool_effects(usable["diff"].to_numpy(float), usable["se"].to_numpy(float) ** 2, tau2=tau2,
                             interval=interval, clusters=labels, confidence_level=confidence_level)
            row.update(estimate=r.estimate, se=r.se, ci_low=r.ci_low, ci_high=r.ci_high,
                       df=r.df if np.isfinite(r.df) else np.nan, p=r.p_value,
                       interval=r.interval, tau2_method=r.tau2_method, tau2=r.tau2, tau=float(np.sqrt(r.tau2)),
                       i2=r.i2, q=r.q, q_p=r.q_p, pi_low=r.pi_low, pi_high=r.pi_high,
                       fixed_estimate=r.fixed_estimate, fixed_ci_low=r.fixed_ci_low, fixed_ci_high=r.fixed_ci_high)
            notes.extend(Note(f"{system}: {n}", code=n.code, severity=n.severity, concerns=(str(system),))
                         for n in r.notes)
        else:
            notes.append(Note(f"{system}: fewer than 2 settings to pool", code="too-few-settings", severity="caution",
                              concerns=(str(system),)))
        rows.append(row)
    columns = ["system", "reference", "n_settings", "k", "n_excluded", "estimate", "se", "ci_low", "ci_high", "df",
               "p", "interval", "tau2_method", "tau2", "tau", "i2", "q", "q_p", "pi_low", "pi_high",
               "fixed_estimate", "fixed_ci_low", "fixed_ci_high", "beats_in", "p_beats_one", "beats_settings",
               "worse_in"]
    out = pd.DataFrame(rows).reindex(columns=columns)
    used = ", ".join(sorted({str(r["interval"]) for r in rows if "interval" in r})) or "none"
    notes.insert(0, Note(f"pooled with τ² {tau2}, interval {used}"
                         + (f", CR2 robust over {clusters!r} clusters" if clusters else "")
                         + f"; u-of-N counts by {combine} partial conjunction at α = {alpha:g}",
                         code="pooling-method"))
    kinds = declare({"tau2": real("points²"), "i2": PERCENT}, real=("df", "q"), p=("p", "q_p", "p_beats_one"),
                    points=("estimate", "se", "ci_low", "ci_high", "tau", "pi_low", "pi_high",
                            "fixed_estimate", "fixed_ci_low", "fixed_ci_high"))
    return stamp(out, "pool_settings", kinds=kinds, notes=notes, resampled=False, unit="points",
                 confidence_level=confidence_level, correction=combine)
