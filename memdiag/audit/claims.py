"""Claims audit: check the comparisons a paper states against the verdicts (SPEC §5–§7).

One job: :func:`audit_claims` takes the claims a paper states ("A beats B on LoCoMo", "A scores
above 50"; read by :func:`memdiag.read_claims`, :mod:`memdiag.io.claims`) and recomputes each one
from the verdicts — estimates, interval and test under the benchmark's scheme and design, Holm
adjustment per family, detectable effect and power (:mod:`memdiag.engine.inference.power`) — and gives it a verdict with one line of reason.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from memdiag.analyses.compare import compare
from memdiag.core.checks import alpha_of
from memdiag.core.kinds import declare
from memdiag.core.notes import Note, prefixed
from memdiag.core.provenance import stamp
from memdiag.engine.inference import (
    adjust,
    design_detectable_effect,
    design_power,
    detectable_effect,
    mcnemar_power,
)
from memdiag.engine.inference.intervals import infer
from memdiag.engine.options import Options, as_options
from memdiag.errors import SchemeError, VerdictError
from memdiag.io.claims import DIRECTIONS, MARGIN_DIRECTIONS, NUMBER_FIELDS, read_claims
from memdiag.io.csv_text import is_empty
from memdiag.panel.metrics import EVIDENCE_METRICS, metric_columns
from memdiag.panel.prepare import Prepared, prepare
from memdiag.panel.schemes import Scheme, known_schemes, resolve_scheme
from memdiag.synthesis.fragility import (
    FRAGILITY_COLUMNS,
    FRAGILITY_KINDS,
    pair_fragility,
)

#: The claim verdicts, in order of precedence (the first that applies is given).
VERDICTS: tuple[str, ...] = ("not checkable", "value mismatch", "contradicted", "not significant", "supported")

def _half_unit(value: float) -> float:
    """Half a unit in the last decimal place a reported number was written with (67.13 -> 0.005)."""
    text = repr(float(value))
    if "e" in text or "E" in text:
        return 0.5 * 10.0 ** math.floor(math.log10(abs(value))) if value else 0.5
    decimals = 0 if text.endswith(".0") else len(text.split(".")[1])
    return 0.5 * 10.0 ** -decimals


def _power_columns(row: dict, alpha: float, power: float, level: float) -> dict:
    """Detectable effect and power of one checked claim (points), see :func:`audit_claims`."""
    target = abs(row["reported_diff"]) if not math.isnan(row["reported_diff"]) else abs(row["diff"])
    basis = "reported" if not math.isnan(row["reported_diff"]) else "observed"
    if row["_discordant"] is not None:
        n, (b, c) = row["n"], row["_discordant"]
        psi = (b + c) / n
        delta = min(target / 100, psi)
        return {"detectable_effect": 100 * detectable_effect(n, psi, alpha=alpha, power=power) if psi else math.nan,
                "power": mcnemar_power(n, (psi + delta) / 2, (psi - delta) / 2, alpha=alpha) if psi else math.nan,
                "power_basis": f"{basis} diff, exact McNemar"}
    df = row["_df"]
    if df is not None:          # t interval of a cluster design: the design's SE and t(df)
        se, how = row["_se"], f"t on {df:.3g} df with the {row['_method'].split(',')[0]} SE"
    else:                       # percentile interval: its normal-equivalent SE
        se, df, how = (row["ci_high"] - row["ci_low"]) / (2 * stats.norm.ppf(0.5 + level / 2)), math.inf, \
            "normal with bootstrap SE"
    if not se > 0:
        return {"detectable_effect": math.nan, "power": math.nan, "power_basis": "undefined (no spread)"}
    detectable = (design_detectable_effect(se, df, alpha=alpha, power=power) if math.isfinite(df)
                  else (stats.norm.isf(alpha / 2) + stats.norm.ppf(power)) * se)
    return {"detectable_effect": detectable, "power": design_power(target, se, df, alpha=alpha),
            "power_basis": f"{basis} diff, {how}"}


def _checkable(df: pd.DataFrame, claim: Mapping) -> tuple[pd.DataFrame, Scheme | None]:
    """The claim's verdict rows and scheme; VerdictError/SchemeError says why it cannot be checked."""
    scheme = claim["scheme"]
    benchmark = claim["benchmark"]
    if benchmark is not None:
        if "benchmark" in df:
            df = df[df["benchmark"].astype(str).str.casefold() == benchmark.casefold()]
            if df.empty:
                raise VerdictError(f"no verdicts of benchmark '{benchmark}' in the data")
        if scheme is None and benchmark.casefold() in {s.casefold() for s in known_schemes()}:
            scheme = benchmark
    systems = set(df["system"].astype(str))
    for name in (claim["system_a"], claim["system_b"]):
        if name is not None and name not in systems:
            raise VerdictError(f"system '{name}' is not in the data (systems: {', '.join(sorted(systems))})")
    metric = claim["metric"]
    needs = "sufficient" if metric in EVIDENCE_METRICS else (None if metric == "accuracy" else metric)
    if needs is not None and needs not in df:
        raise VerdictError(f"metric '{metric}' needs a '{needs}' column, which the verdicts lack")
    return df, resolve_scheme(scheme)


def _evaluate(df: pd.DataFrame, claim: Mapping, opts: Options, base: Prepared | None, policies: Mapping) -> dict:
    """Recomputed numbers of one claim (no verdict yet); raises if it cannot be checked. The claim's
    data are ``base`` prepared again (its choices kept, the claim's scheme, metric, systems and
    design changed) on the claim's rows of ``df``, or ``df``'s rows prepared with the defaults."""
    n_resamples, seed, level, inference = (opts.resampled("audit_claims"), opts.seed, opts.confidence_level,
                                           opts.inference)
    data, scheme = _checkable(df, claim)
    a, b = claim["system_a"], claim["system_b"]
    changes = dict(metric=claim["metric"], systems=[a] if b is None else [a, b])
    design = claim["design"] if claim["design"] is not None else opts.design
    if base is None:
        prepared = prepare(data, scheme=scheme, design=design, **policies, **changes)
    else:                     # the user's choices carry over unless the claim names its own
        changes.update({k: v for k, v in (("scheme", scheme), ("design", design)) if v is not None})
        prepared = base.reprepare(rows=data, **policies, **changes)
    scheme = prepared.scheme
    kind = prepared.design
    notes = list(prepared.notes)
    cols = metric_columns(prepared, claim["metric"])
    exact = cols.binary and kind == "iid"
    row = {"scheme": scheme.name if scheme else None, "n": prepared.n, "design": kind, "_discordant": None,
           "_notes": notes}
    if b is not None:
        test = MARGIN_DIRECTIONS.get(claim["direction"], "difference")
        margin = claim["margin"] if test != "difference" else None
        table = compare(prepared, metric=claim["metric"], test=test, margin=margin, options=opts.replace(design=None))
        out = table.iloc[0]
        row["_notes"] = notes + table.attrs["notes"][1 + len(prepared.notes):]
        row.update({k: out[k] for k in ("estimate_a", "estimate_b", "diff", "ci_low", "ci_high", "p", "test")})
        if test != "difference":   # the claim's p is the margin test's; the difference test stays in the reason
            row.update(p=float(out["p_margin"]), test=f"{'TOST' if test == 'equivalence' else 'non-inferiority'} "
                       f"({out['method']})", _tost=(float(out["tost_low"]), float(out["tost_high"])),
                       _difference_p=float(out["p"]))
        row.update(_se=out["se"], _df=table.attrs.get("df"), _method=out["method"],
                   _mc={k: v[0] for k, v in table.attrs["mc_se"].items()})
        if exact:
            ya, yb = cols.per_query[:, 0] > 0.5, cols.per_query[:, 1] > 0.5
            row["_discordant"] = (int((ya & ~yb).sum()), int((~ya & yb).sum()))
        if cols.plain is not None:  # how little overturns it (SPEC §10.3), on the metric's own values
            row.update(pair_fragility(prepared, a, b, confidence_level=level, values=cols.plain))
        return row
    null = claim["threshold"] / 100
    res = infer(cols.X, prepared.resampling, cols.statistic, inference=inference, null=null,
                n_resamples=n_resamples, seed=seed, confidence_level=level)
    estimate = float(res.estimate[0])
    if exact and 0 <= null <= 1:
        successes = int(cols.per_query[:, 0].sum())
        p, test = float(stats.binomtest(successes, prepared.n, null).pvalue), "exact binomial"
    else:
        p, test = float(res.p_value[0]), res.tests[0]
    row.update({"estimate_a": 100 * estimate, "estimate_b": math.nan, "diff": 100 * estimate - claim["threshold"],
                "ci_low": 100 * float(res.ci_low[0]) - claim["threshold"],
                "ci_high": 100 * float(res.ci_high[0]) - claim["threshold"], "p": p, "test": test,
                "_se": 100 * float(res.se[0]), "_df": res.df, "_method": res.method,
                "_mc": {"p": 0.0 if test == "exact binomial" else float(res.mc_se["p"][0]),
                        "ci_low": 100 * float(res.mc_se["ci_low"][0]), "ci_high": 100 * float(res.mc_se["ci_high"][0])}})
    return row


def _margin_verdict(claim: Mapping, row: Mapping, alpha: float, numbers: str, level: float) -> tuple[str, str]:
    """Verdict of an ``equivalent`` or ``not-worse`` claim from its margin test (SPEC §5.6)."""
    m = claim["margin"]
    low, high = row["_tost"]
    interval = f"the {level:.0%} interval [{low:.2f}, {high:.2f}]"
    if claim["direction"] == "equivalent":
        if row["p_adj"] <= alpha:
            return "supported", f"equivalent within ±{m:g}: {interval} lies inside it; {numbers} ≤ α = {alpha:g}"
        if low >= m or high <= -m:
            return "contradicted", f"{interval} lies outside ±{m:g}: the systems differ by more than the margin; {numbers}"
        return "not significant", f"equivalence within ±{m:g} not shown: {interval} is not inside it; {numbers} > α = {alpha:g}"
    if row["p_adj"] <= alpha:
        return "supported", f"not worse by more than {m:g}: {interval} starts above −{m:g}; {numbers} ≤ α = {alpha:g}"
    if high <= -m:
        return "contradicted", f"worse by more than {m:g}: {interval} ends below −{m:g}; {numbers}"
    return "not significant", f"non-inferiority by {m:g} not shown: {interval} reaches below −{m:g}; {numbers} > α = {alpha:g}"


def _verdict(claim: Mapping, row: Mapping, alpha: float, family_size: int, level: float = 0.95) -> tuple[str, str]:
    """Verdict and one line of reason, by the precedence of :data:`VERDICTS`."""
    a = claim["system_a"]
    other = claim["system_b"] if claim["system_b"] is not None else f"{claim['threshold']:g}"
    numbers = (f"{a} − {other} = {row['diff']:+.2f} points [{row['ci_low']:.2f}, {row['ci_high']:.2f}], "
               f"{row['test']} p = {row['p']:.3g}")
    if family_size > 1:
        numbers += f", Holm p = {row['p_adj']:.3g} over {family_size} claims of family '{claim['family']}'"
    tolerance = claim["tolerance"]
    mismatches = []
    for field, value in (("reported_value", row["estimate_a"]), ("reported_diff", row["diff"])):
        reported = claim[field]
        if not math.isnan(reported):
            tol = tolerance if not math.isnan(tolerance) else _half_unit(reported)
            if abs(reported - value) > tol + 1e-9:
                mismatches.append(f"{field.replace('_', ' ')} {reported:g} vs recomputed {value:.2f} "
                                  f"(off by {reported - value:+.2f}, tolerance {tol:g})")
    significant = row["p_adj"] <= alpha
    side = int(np.sign(row["diff"]))
    claimed = DIRECTIONS.get(claim["direction"], 0)
    if not math.isnan(claim["reported_p"]) and (claim["reported_p"] <= alpha) != significant:
        numbers += f"; reported p = {claim['reported_p']:g}"
    if mismatches:
        return "value mismatch", "; ".join(mismatches) + f" ({numbers})"
    if claim["direction"] in MARGIN_DIRECTIONS:
        return _margin_verdict(claim, row, alpha, numbers, 2 * level - 1)
    if claimed and side == -claimed:
        why = "significant in the other direction" if significant else "estimate on the other side"
        return "contradicted", f"{why}: {numbers}"
    if significant and (claimed == 0 or side == claimed):
        return "supported", f"{numbers} ≤ α = {alpha:g}"
    return "not significant", f"{numbers} > α = {alpha:g}"


def _claim_notes(notes: list[tuple[str, str]], n_claims: int) -> list[Note]:
    """Each distinct note of the claims once, led by the claims it concerns ("every checked claim:
    ...", "claims a, b: ...", "a: ..."), in the order first seen; code and severity kept.
    ``n_claims`` is the number of claims checked.

    >>> _claim_notes([("a", "x"), ("b", "x"), ("b", "y")], 2)
    ['every checked claim: x', 'b: y']
    """
    ids: dict[str, list[str]] = {}
    first: dict[str, str] = {}
    for claim, note in notes:
        ids.setdefault(str(note), []).append(claim)
        first.setdefault(str(note), note)
    out = []
    for text, claims in ids.items():
        claims = list(dict.fromkeys(claims))
        who = ("every checked claim" if len(claims) == n_claims and n_claims > 1 else
               f"claims {', '.join(claims)}" if len(claims) > 1 else claims[0])
        out.append(prefixed(f"{who}: ", first[text]))
    return out


def audit_claims(
    data: pd.DataFrame | Prepared,
    claims: str | Path | pd.DataFrame | Sequence[Mapping],
    *,
    power: float = 0.8,
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """Check each claim against the verdicts and give it a verdict with one line of reason.

    Parameters
    ----------
    data
        Canonical verdicts (each claim's rows prepared with the defaults), or
        :func:`memdiag.prepare` output: each claim's rows are then prepared again with its
        choices (missing-data, judge, label and cluster policies, and the scheme and design
        unless the claim names its own; :meth:`memdiag.Prepared.reprepare`), so
        ``md.prepare(df, missing="drop", cluster_missing="own")`` sets them for every claim.
        Each claim's own scheme (or benchmark), metric and systems always apply.
    claims
        A claims file or table (see :func:`memdiag.read_claims` for the fields).
    power
        The power of the detectable effect.
    options
        :class:`memdiag.Options` (or a mapping of its fields; None: the defaults); the
        significance level of the Holm-adjusted p-values is α = 1 − ``confidence_level``
        (0.95 gives exactly 0.05; :func:`memdiag.core.checks.alpha_of`). Reads
        inference (``auto``: the SPEC §4.1 rule, as in :func:`memdiag.compare`), n_resamples
        (bootstrap replicates or wild draws for the intervals and the tests where no exact test
        applies; at least 1), seed, confidence_level, and design (the design of the claims that
        name none; None: each claim's scheme's or its data's clusters). Not correction: the
        adjustment is always Holm per family.

    Returns
    -------
    pandas.DataFrame
        One row per claim: ``id, family, verdict, reason, system_a, system_b, threshold, metric,
        scheme, direction, estimate_a, estimate_b, diff, ci_low, ci_high, p, p_adj, test, n,
        design, detectable_effect, power, power_basis, reported_value, reported_diff,
        reported_p, tolerance``, and the fragility of a comparison of a binary metric (SPEC §10.3;
        NaN otherwise): ``flips_sign, flips_significance, p_after_flips`` (verdict flips that
        overturn its sign or exact McNemar's verdict), ``removal_sign, removal_significance,
        removal_significance_lower, removal_method`` (clusters whose removal does; see
        :func:`memdiag.fragility`). Estimates, differences, intervals and detectable effects are in
        points; ``diff`` = a − b, or a − threshold. ``attrs["mc_se"]`` holds the Monte-Carlo
        standard errors of each claim's p and interval ends (NaN for a claim not checkable).

    Raises
    ------
    VerdictError
        A claims file or table :func:`memdiag.read_claims` refuses; ``n_resamples`` 0; prepared data
        that do not keep their source rows. (A claim the data cannot answer is not an error: its
        verdict is ``not checkable``.)

    Notes
    -----
    Numbers: a comparison is recomputed by :func:`memdiag.analyses.compare.compare` on the two systems
    (exact McNemar for a binary plain-mean metric under the iid design, else the design's test —
    the bootstrap sign test under query-level designs, the wild cluster bootstrap-t under a
    cluster design with fewer than 200 clusters, SPEC §4.1); a system-vs-threshold claim by the
    exact binomial test (``scipy.stats.binomtest``) of a binary plain mean under iid, else the
    design's test of θ − threshold. All p-values are two-sided. Holm's adjustment runs over the
    checkable claims of each ``family``; a claim without a family is its own family.

    ``equivalent`` and ``not-worse`` claims are tested against their ``margin`` (points) by
    :func:`memdiag.compare`'s TOST and non-inferiority tests on the design's (1 − 2α) interval
    (SPEC §5.6); their ``p`` is the margin test's, Holm-adjusted with the family: supported when
    the adjusted p ≤ α (the interval inside ±margin, or above −margin), contradicted when the
    interval lies beyond the margin (the systems differ by more than it, or a is worse by more),
    not significant otherwise.

    Verdicts, in precedence order (the first that applies):

    1. ``not checkable`` — the data cannot answer it: unknown system, metric, scheme or
       benchmark (the reason quotes the error; nothing is raised).
    2. ``value mismatch`` — ``reported_value`` (a's estimate) or ``reported_diff`` differs from
       the recomputed number by more than ``tolerance``; default half a unit in the last decimal
       place the number was written with (66.88 -> 0.005; the recomputed number is exact, only
       the published one is rounded). It comes before the test because a claim whose own numbers
       the data do not reproduce is not about these data; the reason still shows the test.
    3. ``contradicted`` — the estimate lies on the other side of the claimed direction
       (significantly or not; the reason says which).
    4. ``not significant`` — right side (or ``different``) but Holm p > α.
    5. ``supported`` — right side and Holm p ≤ α.

    Detectable effect and power (beside, not part of the verdict): for an exact-McNemar claim,
    :func:`detectable_effect` at the observed discordance ψ = (b + c)/N and level α/m (m the
    family size: Holm's first step, so a conservative bound), and :func:`mcnemar_power` at the
    reported difference if given, else the observed one (capped at ψ). Under a cluster design
    with a t interval, the design's t test with the cluster jackknife standard error on G − 1 df
    (:func:`memdiag.engine.inference.power.design_power`, noncentral t: the observed clusters' design
    effect is in that standard error). Otherwise the normal approximation with the bootstrap
    standard error se = (ci_high − ci_low)/(2 z): detectable = (z_{1−α/(2m)} + z_power)·se.

    References
    ----------
    SPEC §7.6 (claims audit), SPEC §4.1 (few clusters), SPEC §5.1 (McNemar), SPEC §5.3 (Holm
    per family), SPEC §5.5 (power) and SPEC §5.6 (margins); Raw-RAG paper C.6 (one family per
    benchmark × metric).
    McNemar, Q. (1947). Note on the sampling error of the difference between correlated
    proportions or percentages. Psychometrika 12(2), 153–157.
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian
    Journal of Statistics 6(2), 65–70.
    Schuirmann, D. J. (1987). A comparison of the two one-sided tests procedure and the power
    approach for assessing the equivalence of average bioavailability. Journal of
    Pharmacokinetics and Biopharmaceutics 15(6), 657–680.

    Examples
    --------
    The memory system answers 12 of 40 questions, all of which RAG also answers (b = 0, c = 18):

    >>> df = pd.DataFrame({"system": ["rag"] * 40 + ["mem"] * 40, "query_id": [f"q{i}" for i in range(40)] * 2,
    ...                    "score": [1] * 30 + [0] * 10 + [1] * 12 + [0] * 28})
    >>> claims = [{"id": "mem-wins", "system_a": "mem", "system_b": "rag", "direction": "greater"},
    ...           {"id": "zep-wins", "system_a": "zep", "system_b": "rag", "direction": "greater"}]
    >>> out = audit_claims(df, claims, options={"n_resamples": 500})
    >>> out[["id", "verdict", "diff"]]
             id        verdict  diff
    0  mem-wins   contradicted -45.0
    1  zep-wins  not checkable   NaN
    >>> print(out.loc[0, "reason"])
    significant in the other direction: mem − rag = -45.00 points [-62.50, -32.50], exact McNemar p = 7.63e-06
    >>> print(out.loc[1, "reason"])
    system 'zep' is not in the data (systems: mem, rag)
    """
    return _audit_claims(data, claims, power=power, opts=as_options(options))


def _audit_claims(data: pd.DataFrame | Prepared, claims: str | Path | pd.DataFrame | Sequence[Mapping], *,
                  power: float = 0.8, opts: Options, policies: Mapping | None = None) -> pd.DataFrame:
    """:func:`audit_claims` with validated options and ``policies`` (keywords of :func:`memdiag.prepare`:
    the report's missing-data and cluster policies) applied to each claim's rows alone."""
    policies = dict(policies or {})
    alpha = alpha_of(opts.confidence_level)
    seed, n_resamples, confidence_level, inference = (opts.seed, opts.resampled("audit_claims"),
                                                      opts.confidence_level, opts.inference)
    if isinstance(data, Prepared):
        if data.source is None:
            raise VerdictError("audit_claims prepares each claim's rows again, and these prepared data do not keep "
                               "their source rows; call md.prepare(...) again.")
        base, df = data, data.source
    elif isinstance(data, pd.DataFrame):
        base, df = None, data
    else:
        raise VerdictError(f"expected a verdict DataFrame or md.prepare(...) output, got {type(data).__name__}. "
                           "Read files with md.read_verdicts first.")
    missing, verdict_missing = (base.missing, base.verdict_missing) if base is not None else ("error", "as-wrong")
    missing, verdict_missing = policies.get("missing", missing), policies.get("verdict_missing", verdict_missing)
    table = read_claims(claims)
    records = [{k: (None if k not in NUMBER_FIELDS and is_empty(v) else v) for k, v in r.items()}
               for r in table.to_dict("records")]  # pandas may store a missing text as NaN
    results: list[dict | str] = []          # recomputed numbers, or why the claim is not checkable
    for claim in records:
        try:
            results.append(_evaluate(df, claim, opts, base, policies))
        except (VerdictError, SchemeError) as error:
            results.append(str(error).rstrip("."))
    checked = np.array([isinstance(r, dict) for r in results])
    family = table["family"].where(table["family"].notna(), "\0" + table["id"].astype(str))
    p = pd.Series([r["p"] if isinstance(r, dict) else math.nan for r in results], index=table.index)
    p_adj = pd.Series(math.nan, index=table.index)
    for _, index in table[checked].groupby(family[checked]).groups.items():
        p_adj[index] = adjust(p[index].to_numpy(dtype=float), method="holm")
    sizes = family[checked].value_counts()
    rows, notes = [], []
    for i, (claim, result) in enumerate(zip(records, results)):
        if not isinstance(result, dict):
            rows.append({**claim, "verdict": "not checkable", "reason": result})
            continue
        m = int(sizes[family.iloc[i]])
        row = {**claim, **result, "p_adj": float(p_adj.iloc[i])}
        if claim["direction"] in MARGIN_DIRECTIONS:
            row.update(detectable_effect=math.nan, power=math.nan,
                       power_basis="not computed for a margin test (the margin is the effect that matters)")
        else:
            row.update(_power_columns(row, alpha / m, power, confidence_level))
        row["verdict"], row["reason"] = _verdict(claim, row, alpha, m, confidence_level)
        notes += [(claim["id"], note) for note in result["_notes"]]
        rows.append(row)
    columns = ["id", "family", "verdict", "reason", "system_a", "system_b", "threshold", "metric", "scheme",
               "direction", "margin", "estimate_a", "estimate_b", "diff", "ci_low", "ci_high", "p", "p_adj", "test",
               "n", "design", "detectable_effect", "power", "power_basis", "reported_value", "reported_diff",
               "reported_p", "tolerance", *FRAGILITY_COLUMNS]
    mc_se = {key: [float(r["_mc"].get(key, math.nan)) if "_mc" in r else math.nan for r in rows]
             for key in ("p", "ci_low", "ci_high")}
    out = pd.DataFrame(rows).reindex(columns=columns)
    out["n"] = out["n"].astype("Int64")
    checked = sum(isinstance(r, dict) for r in results)
    kinds = {**FRAGILITY_KINDS, **declare(
        real=("threshold",), probability=("power",), p=("p", "p_adj", "reported_p"),
        points=("margin", "estimate_a", "estimate_b", "diff", "ci_low", "ci_high", "detectable_effect", "reported_value",
                "reported_diff", "tolerance"))}
    return stamp(out, "audit_claims", kinds=kinds, notes=_claim_notes(notes, checked), unit="points", alpha=alpha, power=power,
                 inference=inference,
                 mc_se=mc_se,
                 n_resamples=n_resamples, seed=seed, confidence_level=confidence_level,
                 correction="holm per family", missing=missing, verdict_missing=verdict_missing,
                 precedence=" > ".join(VERDICTS))
