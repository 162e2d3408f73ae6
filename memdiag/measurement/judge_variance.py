"""Judge repetitions as a source of variance: conversation, question, run and judge parts (SPEC §9.5).

A score is a mean over conversations g, questions q within them, answer runs r of each question and
judge calls j of each answer. With independent random effects at each level (Miller 2024, "Adding
error bars to evals", §3–4),

    y_gqrj = μ + c_g + u_q + a_qr + e_qrj,  Var = σ²_c, σ²_q, σ²_r, σ²_j,

and the variance of the question-weighted mean of N questions in G conversations (n_g each), R runs
and J judge calls is

    Var(ȳ) = Σ_g n_g²/N² · σ²_c + σ²_q/N + σ²_r/(N R) + σ²_j/(N R J).

:func:`variance_components` estimates the four σ² by the method of moments of the nested design
(pooled within-level variances, each corrected for the levels below it) for each system's score and
for each paired difference (runs and judge calls of two systems are independent, so matching them by
their number gives a difference whose run and judge parts are the sums of the two systems'), and
splits Var(ȳ) into the four parts. :func:`repetition_scores` gives the per-judgment, per-run mean and
majority-vote accuracies a release reports; :func:`plan_evaluation` the detectable difference of a
design with more or fewer conversations, runs and judge calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

from memdiag.core.kinds import declare, real
from memdiag.core.notes import Note
from memdiag.core.provenance import POINTS, stamp
from memdiag.errors import VerdictError
from memdiag.io.canonical import check
from memdiag.panel.prepare import Prepared

__all__ = ["plan_evaluation", "repetition_scores", "variance_components"]

COMPONENTS: tuple[str, ...] = ("conversation", "question", "run", "judge")


def _levels(data: pd.DataFrame) -> pd.DataFrame:
    df = check(data)
    if "cluster" not in df or df["cluster"].isna().any():
        raise VerdictError("variance_components needs a 'cluster' (conversation) for every verdict.")
    if df["score"].isna().any():
        raise VerdictError(f"{int(df['score'].isna().sum())} verdicts have no score; the components need every "
                           "judgment (drop or fill them first).")
    df = df.assign(run=df["run"].astype(str) if "run" in df else "0",
                   repeat=df["repeat"] if "repeat" in df else 0)
    return df[["system", "cluster", "query_id", "run", "repeat", "score"]]


def _moments(y: pd.DataFrame) -> dict:
    """Method-of-moments components of ``y`` (columns cluster, query_id, run, repeat, value)."""
    cell = y.groupby(["query_id", "run"], sort=False)
    df_j = float((cell["value"].size() - 1).sum())
    s2_j = float(((y["value"] - cell["value"].transform("mean")) ** 2).sum() / df_j) if df_j > 0 else np.nan
    runs = cell.agg(value=("value", "mean"), n=("value", "size"), cluster=("cluster", "first")).reset_index()
    j_h = float(len(runs) / (1.0 / runs["n"]).sum())  # harmonic mean of judge calls per answer
    q = runs.groupby("query_id", sort=False)
    df_r = float((q["value"].size() - 1).sum())
    r_h = float(q.ngroups / (1.0 / q["value"].size()).sum())
    s2_run_means = float(((runs["value"] - q["value"].transform("mean")) ** 2).sum() / df_r) if df_r > 0 else np.nan
    judge = 0.0 if np.isnan(s2_j) else s2_j
    run = np.nan if np.isnan(s2_run_means) else s2_run_means - judge / j_h
    questions = q.agg(value=("value", "mean"), cluster=("cluster", "first")).reset_index()
    c = questions.groupby("cluster", sort=True)
    n_c = c["value"].size()
    df_q = float((n_c - 1).sum())
    s2_q_means = float(((questions["value"] - c["value"].transform("mean")) ** 2).sum() / df_q)
    below = (0.0 if np.isnan(run) else max(run, 0.0)) / r_h + judge / (r_h * j_h)
    question = s2_q_means - below
    n_h = float(len(n_c) / (1.0 / n_c).sum())
    cluster_means = c["value"].mean()
    s2_c = float(cluster_means.var(ddof=1)) if len(n_c) > 1 else np.nan
    conversation = s2_c - s2_q_means / n_h
    weights = float(((n_c / n_c.sum()) ** 2).sum())
    N = float(n_c.sum())
    raw = {"conversation": conversation, "question": question, "run": run, "judge": s2_j}
    sigma = {k: (max(v, 0.0) if np.isfinite(v) else np.nan) for k, v in raw.items()}
    part = {"conversation": weights * sigma["conversation"], "question": sigma["question"] / N,
            "run": (sigma["run"] if np.isfinite(sigma["run"]) else 0.0) / (N * r_h),
            "judge": (sigma["judge"] if np.isfinite(sigma["judge"]) else 0.0) / (N * r_h * j_h)}
    return {"sigma2": sigma, "raw": raw, "part": part, "G": len(n_c), "N": N, "R": r_h, "J": j_h,
            "n_per_cluster": float(N / len(n_c)), "mean": float(y["value"].mean())}


def variance_components(data: pd.DataFrame | Prepared, *, reference: str | None = None) -> pd.DataFrame:
    """A score's and a paired difference's variance split into conversation, question, run and judge parts.

    Parameters
    ----------
    data
        Canonical verdicts with ``cluster`` (conversation), one row per judge call: ``repeat``
        numbers the judge calls (unique within a system and question, across its runs, as every
        verdict table requires) and an optional ``run`` column the answer runs of a question
        (absent: one run); every system, in the order of the rows. Or :func:`memdiag.prepare`
        output: its verdict rows (:attr:`~memdiag.Prepared.frame`, every judge call as it is;
        the scheme's selection and the cluster labels applied) for its systems
        (``md.prepare(systems=...)``), in their order.
    reference
        Differences are each system minus ``reference``; None: every pair.

    Returns
    -------
    pandas.DataFrame
        One row per (system or pair, component): ``kind`` (``score``/``difference``), ``system``,
        ``reference``, ``component``, ``sigma2`` (the component's variance for one judgment, points²;
        negative moment estimates set to 0), ``sigma2_raw`` (before truncation), ``var_mean`` (its part
        of the variance of the mean, points²), ``share`` of that variance, ``se_mean`` (the total
        standard error of the mean, points), ``estimate`` (the mean, points), and the design
        ``n_conversations``, ``n_questions``, ``n_runs``, ``n_judge_calls``.

    Raises
    ------
    VerdictError
        Bad verdicts, no ``cluster``, a missing score, an unknown system or reference, or a pair
        without common (question, run, judge call) cells.

    Notes
    -----
    Method of moments for the nested design: σ²_j is the pooled variance of the judge calls of an
    answer; the pooled variance of run means within a question estimates σ²_r + σ²_j/J; of question
    means within a conversation, σ²_q + σ²_r/R + σ²_j/(RJ); of conversation means,
    σ²_c + (that)/ñ (ñ the harmonic mean of the questions per conversation). With one run per
    question σ²_r is not identified (NaN; it is inside σ²_q), with one judge call σ²_j.

    References
    ----------
    SPEC §9.5. Miller, E. (2024). Adding error bars to evals: a statistical approach to language
    model evaluations. arXiv:2411.00640. Searle, S. R., Casella, G. & McCulloch, C. E. (1992).
    Variance Components. Wiley (nested ANOVA estimators).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> rows = [{"system": "m", "cluster": f"c{g}", "query_id": f"c{g}q{q}", "repeat": j,
    ...          "score": float(rng.random() < 0.7)} for g in range(5) for q in range(20) for j in range(3)]
    >>> out = variance_components(pd.DataFrame(rows))
    >>> out["component"].tolist()
    ['conversation', 'question', 'run', 'judge']
    """
    systems = list(data.systems) if isinstance(data, Prepared) else None
    df = _levels(data.frame if isinstance(data, Prepared) else data)
    names = list(dict.fromkeys(df["system"])) if systems is None else systems
    unknown = [s for s in names + ([reference] if reference else []) if s not in set(df["system"])]
    if unknown:
        raise VerdictError(f"system '{unknown[0]}' is not in the data.")
    keys = ["cluster", "query_id", "run", "repeat"]
    targets = [("score", s, "", df[df["system"] == s].rename(columns={"score": "value"})) for s in names]
    pairs = combinations(names, 2) if reference is None else [(s, reference) for s in names if s != reference]
    for a, b in pairs:
        ya = df[df["system"] == a].drop(columns="system")
        yb = df[df["system"] == b].drop(columns="system")
        m = ya.merge(yb, on=keys, suffixes=("_a", "_b"))
        if m.empty:
            raise VerdictError(f"{a} and {b} share no (question, run, judge call): nothing to pair.")
        targets.append(("difference", a, b, m.assign(value=m["score_a"] - m["score_b"])[keys + ["value"]]))
    rows, notes = [], []
    for kind, a, b, y in targets:
        mo = _moments(y)
        total = sum(mo["part"].values())
        for comp in COMPONENTS:
            rows.append({"kind": kind, "system": a, "reference": b, "component": comp,
                         "sigma2": 1e4 * mo["sigma2"][comp], "sigma2_raw": 1e4 * mo["raw"][comp],
                         "var_mean": 1e4 * mo["part"][comp], "share": mo["part"][comp] / total if total > 0 else np.nan,
                         "se_mean": 100 * np.sqrt(total), "estimate": 100 * mo["mean"],
                         "n_conversations": mo["G"], "n_questions": int(mo["N"]), "n_runs": mo["R"],
                         "n_judge_calls": mo["J"], "n_per_conversation": mo["n_per_cluster"]})
        if mo["R"] == 1:
            notes.append(Note(f"{a}{' − ' + b if b else ''}: one answer run per question, so the run part is not "
                              "identified (it is counted in the question part)", code="run-variance-unidentified",
                              concerns=(a,) if not b else (a, b)))
        negative = [c for c in COMPONENTS if np.isfinite(mo["raw"][c]) and mo["raw"][c] < 0]
        if negative:
            notes.append(Note(f"{a}{' − ' + b if b else ''}: negative moment estimate(s) for {', '.join(negative)} "
                              "set to 0 (that level's variance is too small to measure)",
                              code="variance-component-truncated", severity="info"))
    out = pd.DataFrame(rows)
    kinds = {**dict.fromkeys(("sigma2", "sigma2_raw", "var_mean"), real("points²")),
             **declare(fraction=("share",), points=("se_mean", "estimate"),
                       real=("n_runs", "n_judge_calls", "n_per_conversation"))}   # harmonic means of counts
    return stamp(out, "variance_components", kinds=kinds, notes=notes, unit=POINTS, resampled=False)


def repetition_scores(data: pd.DataFrame) -> pd.DataFrame:
    """The accuracies a release with repeated judge calls reports: per call, their mean and the majority vote.

    Parameters
    ----------
    data
        Canonical verdicts with ``repeat`` numbering the judge calls of each answer (accepted =
        score > 0.5).

    Returns
    -------
    pandas.DataFrame
        One row per system: ``mean`` (the per-run mean: the mean of the single-call accuracies),
        ``sd`` (their standard deviation, divisor the number of calls), ``majority`` (questions whose
        majority of calls accepted) and ``call_<k>`` for each call, in points; ``n`` questions.

    Raises
    ------
    VerdictError
        Bad verdicts, or calls missing for some answers (the single-call accuracies would not be
        comparable).

    References
    ----------
    SPEC §9.5 and SPEC §1.3 (one score per query from repeated judgments).

    Examples
    --------
    >>> df = pd.DataFrame({"system": "m", "query_id": ["a"] * 3 + ["b"] * 3, "repeat": [0, 1, 2] * 2,
    ...                    "score": [1, 1, 0, 0, 0, 1]})
    >>> repetition_scores(df)[["mean", "majority", "call_1", "call_2", "call_3"]].values.tolist()
    [[50.0, 50.0, 50.0, 50.0, 50.0]]
    """
    df = check(data)
    if "repeat" not in df:
        raise VerdictError("repetition_scores needs a 'repeat' column numbering the judge calls.")
    df = df.assign(accepted=(df["score"] > 0.5).astype(float))
    rows = []
    for system, part in df.groupby("system", sort=True):
        wide = part.pivot_table(index="query_id", columns="repeat", values="accepted", aggfunc="mean")
        if wide.isna().any().any():
            raise VerdictError(f"system '{system}': {int(wide.isna().sum().sum())} (question, call) verdicts are "
                               "missing; the single-call accuracies need every call of every answer.")
        calls = 100 * wide.mean(axis=0).to_numpy()
        votes = (2 * wide.sum(axis=1) > wide.shape[1]).mean()
        row = {"system": system, "mean": float(calls.mean()), "sd": float(calls.std(ddof=0)),
               "majority": 100 * float(votes), "n": int(len(wide))}
        row.update({f"call_{k + 1}": float(v) for k, v in enumerate(calls)})
        rows.append(row)
    out = pd.DataFrame(rows)
    kinds = declare(points=[c for c in out.columns if c in ("mean", "sd", "majority") or c.startswith("call_")])
    return stamp(out, "repetition_scores", kinds=kinds, unit=POINTS, resampled=False)


def plan_evaluation(
    components: pd.DataFrame,
    *,
    conversations: Sequence[int] = (10, 20, 40),
    questions_per_conversation: float | None = None,
    runs: Sequence[int] = (1,),
    judge_calls: Sequence[int] = (1, 3, 5),
    alpha: float = 0.05,
    power: float = 0.8,
    target: float | None = None,
) -> pd.DataFrame:
    """The detectable difference of evaluation designs with more or fewer conversations, runs and judge calls.

    Parameters
    ----------
    components
        One difference (or score) of :func:`variance_components` (its four rows; the first
        ``kind="difference"`` is used when several are given).
    conversations, runs, judge_calls
        The numbers of conversations G, answer runs R per question and judge calls J per answer to
        consider (every combination).
    questions_per_conversation
        Questions per conversation (default: as in the data).
    alpha
        Two-sided level of the test.
    power
        The power at which a difference counts as detectable.
    target
        A difference (points) to detect; the rows that reach it are marked ``meets_target``.

    Returns
    -------
    pandas.DataFrame
        One row per design: ``conversations``, ``questions``, ``runs``, ``judge_calls``,
        ``judgments`` (G·n·R·J per system), ``se`` and ``detectable`` (points: (t_{1−α/2} + t_power)·se
        on G − 1 degrees of freedom), ``meets_target``; sorted by judgments.

    Raises
    ------
    VerdictError
        Components without the four rows, or a run (judge) part that is not identified while more
        than one run (call) is asked for.

    Notes
    -----
    se² = σ²_c/G + σ²_q/(Gn) + σ²_r/(GnR) + σ²_j/(GnRJ) for G equal conversations of n questions.
    The conversation part only shrinks with more conversations; judge calls only shrink the judge
    part (Miller 2024, §4: resampling answers and judgments reduces only the within-question
    variance).

    References
    ----------
    SPEC §9.5 and SPEC §4.1 (the t reference on G − 1 df). Miller (2024), arXiv:2411.00640.

    Examples
    --------
    >>> comp = pd.DataFrame({"kind": "difference", "system": "a", "reference": "b",
    ...                      "component": ["conversation", "question", "run", "judge"],
    ...                      "sigma2": [4.0, 2500.0, 0.0, 400.0], "n_per_conversation": 150.0})
    >>> plan = plan_evaluation(comp, conversations=[10], runs=[1], judge_calls=[1, 3])
    >>> plan[["judge_calls", "judgments"]].values.tolist()
    [[1, 1500], [3, 4500]]
    """
    need = components[components["kind"] == "difference"] if (components["kind"] == "difference").any() else components
    first = need.iloc[0]
    need = need[(need["system"] == first["system"]) & (need["reference"] == first["reference"])]
    sigma = dict(zip(need["component"], need["sigma2"]))
    if set(sigma) != set(COMPONENTS):
        raise VerdictError("plan_evaluation needs the four components of one score or difference "
                           "(md.variance_components output).")
    if not 0 < alpha < 1 or not 0 < power < 1:
        raise VerdictError("alpha and power must lie in (0, 1).")
    n = float(questions_per_conversation or first["n_per_conversation"])
    rows = []
    for G in conversations:
        for R in runs:
            for J in judge_calls:
                for comp, k in (("run", R), ("judge", J)):
                    if not np.isfinite(sigma[comp]) and k > 1:
                        raise VerdictError(f"the {comp} part was not identified in the data (one per answer); "
                                           f"plan with {comp}s = 1 only, or measure it with repeated {comp}s.")
                s = {c: (v if np.isfinite(v) else 0.0) for c, v in sigma.items()}
                var = s["conversation"] / G + s["question"] / (G * n) + s["run"] / (G * n * R) + s["judge"] / (G * n * R * J)
                df = G - 1
                mult = stats.t.ppf(1 - alpha / 2, df) + stats.t.ppf(power, df)
                rows.append({"conversations": int(G), "questions": int(round(G * n)), "runs": int(R),
                             "judge_calls": int(J), "judgments": int(round(G * n * R * J)), "se": float(np.sqrt(var)),
                             "detectable": float(mult * np.sqrt(var))})
    out = pd.DataFrame(rows).sort_values(["judgments", "detectable"], kind="stable").reset_index(drop=True)
    out["meets_target"] = out["detectable"] <= target if target is not None else False
    return stamp(out, "plan_evaluation", kinds=declare(points=("se", "detectable")), unit=POINTS, alpha=alpha, power=power, target=target, resampled=False)
