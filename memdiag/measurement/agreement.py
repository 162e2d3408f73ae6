"""Judge reliability: agreement across judge repetitions or judges, and against humans (SPEC §7).

The benefit/tax flows and every accuracy rest on LLM-judge labels, so their reliability is a
diagnostic of its own (Memory Tax review, "largest measurement uncertainty is the LLM judge";
Raw-RAG paper G.3). :func:`agreement` treats each judge repetition (or each judge) as a rater of
the same (system, query) answers and reports percent agreement, Cohen's κ for every pair of
raters, Fleiss' κ across all of them and, given human labels, Cohen's κ of each rater against
the humans, with intervals. :func:`missing_verdict_effect` shows how much the policy for
missing (unparsable) verdicts moves each system's score.

The κ values come from ``statsmodels.stats.inter_rater`` (``cohens_kappa``, ``fleiss_kappa``,
``aggregate_raters``); the bootstrap intervals resample queries with the engine of
:mod:`memdiag.engine.resampling`, from the cell counts that determine κ.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa

from memdiag.core import checks as _checks
from memdiag.core.kinds import declare
from memdiag.core.notes import Note, prefixed
from memdiag.core.provenance import stamp
from memdiag.engine.designs import Design
from memdiag.engine.options import Options, as_options
from memdiag.engine.pairs import THRESHOLD, cell_indicators
from memdiag.engine.resampling import bootstrap_sums
from memdiag.errors import VerdictError
from memdiag.panel.align import MissingQueryPolicy, align, check_systems
from memdiag.panel.judges import JUDGES_MEAN, judges_of
from memdiag.panel.prepare import Prepared

COLUMNS: tuple[str, ...] = ("kind", "rater_a", "rater_b", "n", "n_raters", "agreement", "kappa", "se",
                            "ci_low", "ci_high", "boot_ci_low", "boot_ci_high", "missing_a", "missing_b",
                            "n_left_out")


# --------------------------------------------------------------------------------------------
# the rater matrix
# --------------------------------------------------------------------------------------------
def _raters(df: pd.DataFrame, by: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Units (system, query_id) x raters: the scores (NaN = missing or absent verdict) and whether
    the rater judged the unit at all."""
    for column in ("system", "query_id", "score", by):
        if column not in df:
            raise VerdictError(f"<data>, field '{column}': required column is missing (have: "
                               f"{', '.join(map(str, df.columns))}). Agreement needs system, query_id, "
                               f"score and the rater column '{by}'.")
    scores = pd.to_numeric(df["score"], errors="coerce")
    bad = np.flatnonzero((scores.isna() & df["score"].notna()).to_numpy()
                         | (scores < 0).to_numpy() | (scores > 1).to_numpy())
    if bad.size:
        raise VerdictError(f"<data>, record {bad[0] + 1}, field 'score': {df['score'].iloc[bad[0]]!r} is "
                           "not a score in [0, 1] or missing.")
    long = pd.DataFrame({"system": df["system"].astype(str), "query_id": df["query_id"].astype(str),
                         "rater": df[by].astype(str), "score": scores})
    dup = long.duplicated(["system", "query_id", "rater"])
    if dup.any():
        i = int(np.flatnonzero(dup.to_numpy())[0])
        hint = (" Each judge has several repetitions: pass one (df[df['repeat'] == 0]) or measure "
                "agreement across repetitions per judge." if by != "repeat" else "")
        raise VerdictError(f"<data>, record {i + 1}, field '{by}': a second verdict of rater "
                           f"'{long['rater'].iloc[i]}' for ({long['system'].iloc[i]}, "
                           f"{long['query_id'].iloc[i]}).{hint}")
    wide = long.pivot(index=["system", "query_id"], columns="rater", values="score")
    if wide.shape[1] < 2:
        raise VerdictError(f"agreement needs at least two raters in '{by}'; the data hold "
                           f"{wide.shape[1]} ({', '.join(map(str, wide.columns))}).")
    judged = long.assign(seen=True).pivot(index=["system", "query_id"], columns="rater", values="seen")
    judged = judged.reindex_like(wide).notna()
    if judged.sum(axis=1).max() < 2:
        raise VerdictError(f"'{by}' does not name raters of the same answers: every (system, query) answer "
                           f"has one value of it, so there is nothing to compare. Agreement compares the "
                           "judge repetitions ('repeat') or the judges ('judge') of each answer.")
    return wide.sort_index(), judged.sort_index()


def _human(human: str | pd.DataFrame | pd.Series, df: pd.DataFrame, units: pd.MultiIndex) -> pd.Series:
    """Human 0/1 labels aligned to the units (NaN where a unit has none)."""
    if isinstance(human, str):
        if human not in df:
            raise VerdictError(f"<data>, field '{human}': no such column for the human labels.")
        frame = pd.DataFrame({"system": df["system"].astype(str), "query_id": df["query_id"].astype(str),
                              "human": pd.to_numeric(df[human], errors="coerce")}).dropna()
        if (frame.groupby(["system", "query_id"])["human"].nunique() > 1).any():
            raise VerdictError(f"<data>, field '{human}': a (system, query) carries two different human "
                               "labels. Give one label per answer.")
        labels = frame.groupby(["system", "query_id"])["human"].first()
    else:
        if isinstance(human, pd.Series):
            human = human.rename("human").rename_axis("query_id").reset_index()
        keys = [c for c in ("system", "query_id") if c in human]
        values = [c for c in human.columns if c not in keys]
        if "query_id" not in keys or len(values) != 1:
            raise VerdictError("human labels: give a frame with 'query_id' (and 'system' when the verdicts "
                               "hold several systems) and one label column, or a Series indexed by "
                               f"query_id (got columns {', '.join(map(str, human.columns))}).")
        frame = human.assign(query_id=human["query_id"].astype(str),
                             label=pd.to_numeric(human[values[0]], errors="coerce"))
        if "system" in keys:
            labels = frame.assign(system=frame["system"].astype(str)).set_index(["system", "query_id"])["label"]
        else:
            systems = units.get_level_values("system").unique()
            if len(systems) > 1:
                raise VerdictError(f"human labels have no 'system' column but the verdicts hold {len(systems)} "
                                   "systems. Label each (system, query) answer.")
            labels = frame.assign(system=systems[0]).set_index(["system", "query_id"])["label"]
        if labels.index.duplicated().any():
            raise VerdictError(f"human labels: '{labels.index[labels.index.duplicated()][0]}' is labelled "
                               "twice. Give one label per answer.")
    if not labels.dropna().isin([0.0, 1.0]).all():
        raise VerdictError("human labels must be 0 (wrong) or 1 (correct).")
    return labels.reindex(units)


# --------------------------------------------------------------------------------------------
# kappas from sums (for the bootstrap) and from statsmodels (the estimates)
# --------------------------------------------------------------------------------------------
def _cohen_from_sums(sums: np.ndarray) -> np.ndarray:
    """Cohen's κ of each 2x2 table in sums ``(B, 4k)`` -> ``(B, k)``; NaN when p_e = 1."""
    cells = sums.reshape(sums.shape[0], -1, 4)
    n = cells.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = (cells[..., 0] + cells[..., 3]) / n
        pa = (cells[..., 0] + cells[..., 1]) / n
        pb = (cells[..., 0] + cells[..., 2]) / n
        chance = pa * pb + (1 - pa) * (1 - pb)
        return (observed - chance) / (1 - chance)


def _fleiss_from_sums(sums: np.ndarray, m: int) -> np.ndarray:
    """Fleiss' κ from sums ``(B, 3)`` of [P_i, n_i1, 1] with m raters per unit -> ``(B, 1)``."""
    with np.errstate(invalid="ignore", divide="ignore"):
        p_bar = sums[:, 0] / sums[:, 2]
        p1 = sums[:, 1] / (sums[:, 2] * m)
        chance = p1 ** 2 + (1 - p1) ** 2
        return ((p_bar - chance) / (1 - chance))[:, None]


def _cohen_row(a: np.ndarray, b: np.ndarray, z: float) -> dict:
    """Cohen's κ of two 0/1 vectors via ``statsmodels.stats.inter_rater.cohens_kappa`` (NaN when
    the two raters share no answer)."""
    table = np.array([[np.sum(a & b), np.sum(a & ~b)], [np.sum(~a & b), np.sum(~a & ~b)]], dtype=float)
    n = int(table.sum())
    if n == 0:
        return {"n": 0, "agreement": np.nan, "kappa": np.nan, "se": np.nan, "ci_low": np.nan, "ci_high": np.nan}
    with np.errstate(invalid="ignore", divide="ignore"):    # κ is NaN when p_e = 1
        res = cohens_kappa(table)
    kappa, se = float(res.kappa), float(res.std_kappa)
    return {"n": n, "agreement": (table[0, 0] + table[1, 1]) / n if n else np.nan, "kappa": kappa,
            "se": se, "ci_low": kappa - z * se, "ci_high": kappa + z * se}


def _bootstrap(cells: np.ndarray, fleiss_columns: np.ndarray, m: int, n_pairs: int, query_codes: np.ndarray,
               n_resamples: int, seed: int | np.random.Generator, ci: float):
    """Bootstrap of every κ in output row order (pairs, Fleiss, vs human), resampling queries.

    ``cells`` ``(N, 4k)`` holds the per-unit 2x2 cells of the k Cohen comparisons (pairs first,
    then vs human), ``fleiss_columns`` ``(N, 3)`` the per-unit [P_i, n_i1, 1]; the answers of
    all systems to one query (same code) are drawn together.
    """
    k = cells.shape[1] // 4

    def kappas(sums: np.ndarray) -> np.ndarray:
        cohen = _cohen_from_sums(sums[:, :4 * k])
        return np.hstack([cohen[:, :n_pairs], _fleiss_from_sums(sums[:, 4 * k:], m), cohen[:, n_pairs:]])

    return bootstrap_sums(np.hstack([cells, fleiss_columns]), Design("cluster", cluster=query_codes), kappas,
                          n_resamples=n_resamples, seed=seed, ci=ci)


def _fleiss(counts: np.ndarray) -> float:
    """Fleiss' κ via ``statsmodels.stats.inter_rater.fleiss_kappa``; NaN when P_e = 1."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(fleiss_kappa(counts, method="fleiss"))
def agreement(
    df: pd.DataFrame | Prepared,
    *,
    by: str = "repeat",
    human: str | pd.DataFrame | pd.Series | None = None,
    verdict_missing: str = "exclude",
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """Agreement of judge repetitions or judges on the same answers, and against humans (SPEC §7).

    Parameters
    ----------
    df
        Verdicts with ``system``, ``query_id``, ``score`` and the rater column: ``repeat``
        (judge repetitions of one answer, SPEC §1) or ``judge`` (several judges). One unit is
        one (system, query) answer; each rater gives it one verdict. :func:`memdiag.prepare`
        output works too: its verdict rows (:attr:`~memdiag.Prepared.frame`, the scheme's
        selection applied), each rater's verdicts as they are — the raters are not combined —
        and its threshold: a verdict is correct when its score is > the prepared threshold
        (``md.prepare(threshold=...)``; None, and for verdicts: 0.5, SPEC §2; fractional scores
        such as a judge's confidence are binarised, 0/1 scores are unchanged).
    by
        The rater column, ``"repeat"`` or ``"judge"`` (any column naming the rater works).
    human
        Optional human labels (0/1 per answer): a column of ``df``, a frame with ``query_id``
        (and ``system`` when ``df`` holds several systems) and one label column, or a Series
        indexed by ``query_id``. Answers without a human label are left out of those rows.
    verdict_missing
        A missing or unparsable verdict of one rater (a NaN score): ``"exclude"`` (default: the
        answer is left out of the comparisons of that rater, like an answer the rater never
        judged) or ``"as-wrong"`` (scored 0 as in C.6/G.3). Kept here, not taken from
        :func:`memdiag.prepare`: it is about each rater's own verdicts, before any alignment
        (the prepared policy decides how the raters' mean scores a query), and its default
        differs from the alignment policy's (``as-wrong``). Either way the counts per rater are in
        ``missing_a``/``missing_b``. An answer a rater did not judge at all is always left out of
        that rater's comparisons — never scored — so each comparison rests on the answers every
        compared rater judged (``n``); ``n_left_out`` counts the answers judged by some but not
        all of them, and the notes say so.
    options
        :class:`memdiag.Options` (None: the defaults); reads n_resamples (the bootstrap over
        queries for ``boot_ci_low``/``boot_ci_high``, default 20,000; 0 skips it), seed, and
        confidence_level (the level of both intervals). Not design, inference or correction:
        the bootstrap always resamples queries (all systems' answers to one query together)
        with a percentile interval, and nothing is adjusted.

    Returns
    -------
    pandas.DataFrame
        One row per comparison, ``kind`` = ``"cohen"`` (each pair of raters), ``"fleiss"`` (all
        raters, ``rater_a == "all"``) or ``"human"`` (each rater vs the human labels, ``rater_b
        == "human"``); columns ``kind, rater_a, rater_b, n, n_raters, agreement, kappa, se,
        ci_low, ci_high, boot_ci_low, boot_ci_high, missing_a, missing_b, n_left_out``. ``agreement`` is the
        observed share of agreement in points (for Fleiss, the mean pairwise agreement 100·P̄).
        ``attrs["missing_per_rater"]`` maps each rater to its missing-verdict count.

    Raises
    ------
    VerdictError
        A required column (``system``, ``query_id``, ``score``, ``by``) is missing; a score is
        not in [0, 1] or missing; a rater gives one answer two verdicts; fewer than two raters, or
        a ``by`` column that does not name raters of the same answers; human labels that are not
        0/1, name no such column, label an answer twice or lack ``system`` for several systems;
        or an unknown ``verdict_missing``.

    Notes
    -----
    Cohen (1960): κ = (p_o − p_e)/(1 − p_e), p_o the share of units both raters label alike,
    p_e = p_a p_b + (1 − p_a)(1 − p_b) from the raters' marginal shares of "correct". Its ``se``
    is statsmodels' asymptotic standard error (Fleiss, Cohen & Everitt 1969) and ``ci_low``,
    ``ci_high`` = κ ± z·se. Fleiss (1971): with m raters and n_i1 of them saying "correct" on
    unit i, P_i = [n_i1² + (m − n_i1)² − m]/(m(m − 1)), P̄ = mean P_i, p = Σ n_i1/(N m),
    P_e = p² + (1 − p)², κ = (P̄ − P_e)/(1 − P_e); statsmodels gives no standard error, so its
    interval is the bootstrap one only. Bootstrap: queries are resampled with replacement
    (all systems' answers to a query together, as SPEC §4 pairs them), κ is recomputed from the
    resampled cell counts, percentile interval; a replicate with p_e = 1 is undefined and left
    out. κ is NaN when p_e = 1 on the data (both raters constant).

    References
    ----------
    SPEC §7.3 (judge reliability); Raw-RAG paper G.3 (three judgments per answer, unusable
    outputs score 0); Memory Tax review (the LLM judge as the largest measurement uncertainty).
    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and
    Psychological Measurement 20(1), 37–46.
    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological
    Bulletin 76(5), 378–382.
    Fleiss, J. L., Cohen, J. & Everitt, B. S. (1969). Large sample standard errors of kappa and
    weighted kappa. Psychological Bulletin 72(5), 323–327.
    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.

    Examples
    --------
    Two repetitions that disagree on one of four answers (Fleiss' κ pools the two raters'
    marginals, p = 3/8, so it differs from Cohen's: (0.75 − 34/64)/(30/64) = 0.4667):

    >>> df = pd.DataFrame({"system": "mem", "query_id": list("abcdabcd"), "repeat": [0] * 4 + [1] * 4,
    ...                    "score": [1, 1, 0, 0, 1, 0, 0, 0]})
    >>> out = agreement(df, options={"n_resamples": 0})
    >>> out[["kind", "rater_a", "rater_b", "n", "agreement", "kappa"]]
         kind rater_a rater_b  n  agreement     kappa
    0   cohen       0       1  4       75.0  0.500000
    1  fleiss     all     NaN  4       75.0  0.466667
    """
    _checks.choice(verdict_missing, _checks.VERDICT_MISSING, "missing-verdict policy")
    opts = as_options(options)
    n_resamples, seed, confidence_level = opts.n_resamples, opts.seed, opts.confidence_level
    threshold = THRESHOLD
    if isinstance(df, Prepared):
        threshold = THRESHOLD if df.threshold is None else df.threshold
        df = df.frame
    wide, judged = _raters(df, by)
    raters = [str(r) for r in wide.columns]
    nan = (wide.isna() & judged).to_numpy()
    missing_counts = {r: int(nan[:, i].sum()) for i, r in enumerate(raters)}
    usable = judged.to_numpy() & (~nan if verdict_missing == "exclude" else True)
    correct = wide.fillna(0.0).to_numpy() > threshold
    seen = judged.to_numpy()
    z = float(stats.norm.ppf(0.5 + confidence_level / 2))
    m = len(raters)
    notes = [Note(f"{by} raters {', '.join(raters)}; missing verdicts per rater: "
                  + ", ".join(f"{r} {k}" for r, k in missing_counts.items()) + f" ({verdict_missing})",
                  code="raters")]
    pairs, X, left_out = [], [], []
    for i, j in itertools.combinations(range(m), 2):
        both = usable[:, i] & usable[:, j]
        dropped = int(((seen[:, i] | seen[:, j]) & ~both).sum())
        pairs.append({"kind": "cohen", "rater_a": raters[i], "rater_b": raters[j],
                      **_cohen_row(correct[both, i], correct[both, j], z),
                      "missing_a": missing_counts[raters[i]], "missing_b": missing_counts[raters[j]],
                      "n_left_out": dropped})
        X.append(cell_indicators(correct[:, j], correct[:, i]) * both[:, None])  # (both, i only, j only, neither)
        if dropped:
            left_out.append(f"{raters[i]} vs {raters[j]} {dropped}")
    every = usable.all(axis=1)
    dropped_all = int((seen.any(axis=1) & ~every).sum())
    table, _ = aggregate_raters(correct[every].astype(np.int64), n_cat=2)
    yes = correct.sum(axis=1).astype(np.float64)
    agree_i = (yes ** 2 + (m - yes) ** 2 - m) / (m * (m - 1))
    fleiss = {"kind": "fleiss", "rater_a": "all", "rater_b": np.nan, "n": int(every.sum()),
              "agreement": float(agree_i[every].mean()) if every.any() else np.nan,
              "kappa": _fleiss(table) if every.any() else np.nan,
              "se": np.nan, "ci_low": np.nan, "ci_high": np.nan,
              "missing_a": sum(missing_counts.values()), "missing_b": np.nan, "n_left_out": dropped_all}
    if dropped_all:
        left_out.append(f"all {m} raters (Fleiss) {dropped_all}")
    if left_out:
        notes.append(Note("each comparison uses only the answers every compared rater judged"
                          + (" with a usable verdict" if verdict_missing == "exclude" else "")
                          + f" ({len(wide)} answers in all); left out: " + "; ".join(left_out),
                          code="answers-left-out", severity="caution"))
    if not every.any():
        notes.append(Note(f"no answer was judged by all {m} raters: Fleiss' κ is undefined", code="fleiss-undefined",
                          severity="caution"))
    versus = []
    if human is not None:
        labels = _human(human, df, wide.index)
        labelled = labels.notna().to_numpy()
        truth = labels.fillna(0).to_numpy() > 0.5
        notes.append(Note(f"human labels for {int(labelled.sum())} of {len(wide)} answers", code="human-labels"))
        for i, rater in enumerate(raters):
            mask = labelled & usable[:, i]
            versus.append({"kind": "human", "rater_a": rater, "rater_b": "human",
                           **_cohen_row(correct[mask, i], truth[mask], z),
                           "missing_a": missing_counts[rater], "missing_b": int((~labelled).sum()),
                           "n_left_out": int((seen[:, i] & ~mask).sum())})
            X.append(cell_indicators(truth, correct[:, i]) * mask[:, None])
    out = pd.DataFrame([*pairs, fleiss, *versus])
    out["n_raters"] = np.where(out["kind"] == "fleiss", m, 2)
    out["boot_ci_low"], out["boot_ci_high"] = np.nan, np.nan
    if n_resamples:
        fleiss_columns = np.column_stack([agree_i, yes, np.ones(len(wide))]) * every[:, None]
        codes = pd.factorize(wide.index.get_level_values("query_id"))[0]
        res = _bootstrap(np.hstack(X), fleiss_columns, m, len(pairs), codes, n_resamples, seed, confidence_level)
        out["boot_ci_low"], out["boot_ci_high"] = res.ci_low, res.ci_high
        if np.any(res.n_undefined):
            notes.append(Note(f"up to {int(np.max(res.n_undefined))} of {n_resamples} bootstrap replicates had "
                              "an undefined κ (p_e = 1) and were left out", code="undefined-replicates",
                              severity="caution"))
    out["agreement"] = 100 * out["agreement"]
    out = out[list(COLUMNS)]
    resampled = {"design": "iid", "design_reason": "design iid over queries (all systems' answers to a "
                 "query resampled together)", "n_resamples": n_resamples, "seed": seed} if n_resamples else {}
    kinds = declare(points=("agreement",), real=("kappa", "se", "ci_low", "ci_high", "boot_ci_low", "boot_ci_high"),
                    count=("missing_a", "missing_b"))
    return stamp(out, "agreement", kinds=kinds, notes=notes, by=by, threshold=threshold, verdict_missing=verdict_missing,
                 missing_per_rater=missing_counts, confidence_level=confidence_level, **resampled)


def _effect_rows(df: pd.DataFrame, missing: MissingQueryPolicy, systems: Sequence[str] | None,
                 judges: str | None = None) -> tuple[list[dict], Note]:
    """One row per system of the missing-verdict effect, and the note on the paired exclusion."""
    as_wrong = align(df, missing=missing, verdict_missing="as-wrong", systems=systems, judges=judges)
    paired = align(df, missing=missing, verdict_missing="exclude", systems=systems, judges=judges)
    counts = {n["policy"]: n.get("per_system", {}) for n in as_wrong.notes}
    per_system = counts.get("missing verdicts as-wrong", {})
    rows = []
    for j, name in enumerate(as_wrong.systems):
        own = align(df[df["system"].astype(str) == name], missing=missing, verdict_missing="exclude",
                    judges=judges)
        rows.append({"system": name, "n": as_wrong.n, "n_missing": int(per_system.get(name, 0)),
                     "score_as_wrong": 100 * float(as_wrong.scores[:, j].mean()),
                     "n_excluded": as_wrong.n - own.n, "score_excluded": 100 * float(own.scores.mean()),
                     "score_excluded_paired": 100 * float(paired.scores[:, paired.system_index(name)].mean())})
    return rows, Note(f"{len(paired.query_ids)} of {as_wrong.n} queries have a verdict from every system "
                      "(score_excluded_paired)", code="paired-queries")


def missing_verdict_effect(df: pd.DataFrame | Prepared) -> pd.DataFrame:
    """Each system's score with missing verdicts scored as wrong vs excluded (SPEC §1, §7).

    Parameters
    ----------
    df
        Canonical verdicts (NaN ``score`` = no usable verdict): every system, the missing-query
        policy ``error`` and, with several judges of the same answers, one row per (judge,
        system) — a missing verdict is one judge's, so each judge's rows count its own missing
        verdicts and score its own verdicts, which needs no policy for combining judges.
        Verdicts without a judge label are left out of the per-judge rows, counted in the
        notes. Or :func:`memdiag.prepare` output, whose data choices apply to its verdict rows
        (:attr:`~memdiag.Prepared.frame`): the systems, the missing-query policy
        (``md.prepare(missing=...)``, a query some systems lack) and the judges (``"mean"``:
        one row per judge as above, said in the notes; a judge's name: that judge's rows only;
        a repeat rule: as in :func:`memdiag.align`). The missing-verdict policy is what this
        function compares (both are computed), so the prepared one is not read.

    Returns
    -------
    pandas.DataFrame
        One row per system: ``system, n, n_missing, score_as_wrong`` (missing verdicts score 0
        and stay in the denominator: the default, C.6/G.3), ``n_excluded, score_excluded`` (the
        system's queries with a missing verdict dropped from its own score), ``difference`` =
        score_excluded − score_as_wrong, and ``score_excluded_paired`` (SPEC's ``exclude``
        policy: a query with a missing verdict for any system is dropped for all). Scores are
        mean scores in points (×100). With several judges, one row per (judge, system) and a
        ``judge`` column first; each judge's rows pair the systems that judge rated.

    Raises
    ------
    VerdictError
        Bad verdicts (:func:`memdiag.check`), an unknown ``missing`` policy or system, a
        ``judges`` name that is not a judge of the data, or a query some systems lack under
        ``missing="error"`` (within each judge's verdicts).

    Notes
    -----
    Per system (and judge): score_as_wrong = 100 · Σ_q s_q / N with a missing verdict s_q = 0
    over the N aligned queries; score_excluded = 100 · mean of s_q over the system's queries with
    a usable verdict; score_excluded_paired = the same mean over the queries every system (of
    that judge) has a usable verdict for. Each query's s_q is the mean over its judge
    repetitions (SPEC §1.3).

    References
    ----------
    SPEC §1.4 (pairing and the two missing-data policies), SPEC §7.3 (the effect of the
    missing-verdict policy); Raw-RAG paper C.6 and G.3 (unusable outputs score 0).

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["a"] * 4 + ["b"] * 4, "query_id": list("wxyz") * 2,
    ...                    "score": [1, 1, 0, None, 1, 0, 0, 1]})
    >>> missing_verdict_effect(df)[["system", "n_missing", "score_as_wrong", "score_excluded", "difference"]]
      system  n_missing  score_as_wrong  score_excluded  difference
    0      a          1            50.0       66.666667   16.666667
    1      b          0            50.0       50.000000    0.000000

    Two judges of the same answers: j2 could not judge a's answer to ``x``, so only j2's row for
    ``a`` moves (1/2 as wrong, 1/1 excluded):

    >>> two = pd.DataFrame({"system": ["a", "a", "b", "b"] * 2, "query_id": list("xyxy") * 2,
    ...                     "judge": ["j1"] * 4 + ["j2"] * 4, "score": [1, 0, 1, 1, None, 1, 1, 0]})
    >>> missing_verdict_effect(two)[["judge", "system", "n_missing", "score_as_wrong", "score_excluded"]]
      judge system  n_missing  score_as_wrong  score_excluded
    0    j1      a          0            50.0            50.0
    1    j1      b          0           100.0           100.0
    2    j2      a          1            50.0           100.0
    3    j2      b          0            50.0            50.0
    """
    missing, systems, judges = "error", None, None
    if isinstance(df, Prepared):
        missing, systems, judges, df = df.missing, list(df.systems), df.judges, df.frame
    names = judges_of(df)
    if len(names) < 2:
        rows, note = _effect_rows(df, missing, systems, judges)
        notes = [note]
    else:
        if judges not in (None, JUDGES_MEAN) and judges not in names:
            raise VerdictError(f"judges={judges!r} is not a judge of these verdicts ({', '.join(names)}). "
                               "Use one of them, or 'mean' (or None) for one row per judge.")
        if systems is not None:
            check_systems(df, systems)
        label = df["judge"].astype("string")
        rows, notes = [], []
        if judges == JUDGES_MEAN:
            notes.append(Note(f"judges mean: one row per judge ({', '.join(names)}); a missing verdict is one "
                              "judge's, so each judge's effect is shown on its own verdicts", code="judges-mean"))
        unlabelled = int(label.isna().sum())
        if unlabelled:
            notes.append(Note(f"{unlabelled} verdict{'s' if unlabelled != 1 else ''} without a judge label left out "
                              "of the per-judge rows", code="unlabelled-verdicts", severity="caution"))
        for name in names if judges in (None, JUDGES_MEAN) else [judges]:
            own = df[(label == name).fillna(False).to_numpy()]
            rated = set(own["system"].astype(str))
            wanted = None if systems is None else [s for s in systems if s in rated]
            if wanted == []:
                continue
            judge_rows, note = _effect_rows(own, missing, wanted)
            rows += [{"judge": name, **row} for row in judge_rows]
            notes.append(prefixed(f"judge {name}: ", note))
        if not rows:
            raise VerdictError(f"no judge ({', '.join(names)}) rated the systems {', '.join(systems or [])}: "
                               "their verdicts carry no judge label. Label them, or leave them out of systems.")
    out = pd.DataFrame(rows)
    out.insert(out.columns.get_loc("score_excluded") + 1, "difference", out["score_excluded"] - out["score_as_wrong"])
    kinds = declare(points=("score_as_wrong", "score_excluded", "difference", "score_excluded_paired"))
    return stamp(out, "missing_verdict_effect", kinds=kinds, unit="points", missing=missing, notes=notes,
                 **({"judges": judges} if judges is not None else {}))
