"""Power and the smallest detectable difference of each comparison, under its design (SPEC §4.1).

A comparison's interval says what the data show; its detectable effect says what they could have
shown: the smallest true difference the design's two-sided test finds with the given power. Under
a cluster design with few clusters it is far larger than the query count suggests (LoCoMo's ten
conversations), which is why a "no significant difference" there says little.
:func:`comparison_power` reads it off a :func:`memdiag.compare` result — the design's standard
error and degrees of freedom — through :func:`~memdiag.engine.inference.power.design_detectable_effect` and
:func:`~memdiag.engine.inference.power.design_power`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from memdiag.core.kinds import declare
from memdiag.core.notes import Note
from memdiag.core.result import as_result
from memdiag.engine.inference import design_detectable_effect, design_power
from memdiag.errors import VerdictError

#: The columns of a compare result this needs.
NEEDS: tuple[str, ...] = ("system_a", "system_b", "diff", "se")


def comparison_power(
    compared: pd.DataFrame,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    delta: float | Sequence[float] | None = None,
) -> pd.DataFrame:
    """The detectable difference of each comparison of a :func:`memdiag.compare` result, and its
    power at given differences.

    Parameters
    ----------
    compared
        A :func:`memdiag.compare` result: ``diff`` and ``se`` in points per pair, the t reference's
        degrees of freedom in ``attrs["df"]`` (cluster jackknife: G − 1; CR2: Bell–McCaffrey;
        none: a percentile interval, read with a normal reference).
    alpha
        Two-sided level of each comparison (for a family of m comparisons with Bonferroni, pass
        α/m).
    power
        The power of the detectable difference (default 0.8).
    delta
        True differences (points) to give the power at, e.g. ``5`` or ``[2, 5, 10]``: one column
        ``power_at_<delta>`` each.

    Returns
    -------
    pandas.DataFrame
        One row per pair: ``system_a, system_b, diff, se`` (points), ``df`` (NaN: normal),
        ``detectable_effect`` (points) and the ``power_at_<delta>`` columns; ``attrs`` are the
        comparison's, with ``alpha``, ``power`` and a note on the reference distribution.

    Raises
    ------
    VerdictError
        A frame that is not a compare result, or α, power or a delta out of range.

    Notes
    -----
    With standard error se on df degrees of freedom, the detectable difference δ solves
    P(|T| > t_{1−α/2, df}) = power for T noncentral t(df, δ/se) (normal when df is infinite);
    about (t_{1−α/2, df} + t_{power, df})·se.

    References
    ----------
    SPEC §4.1 (few clusters: the t reference on G − 1 df and the power of the design's test) and
    SPEC §5.5 (power and detectable effect); Raw-RAG paper C.6 (the comparisons whose power this
    is).
    Donner, A. & Klar, N. (2000). Design and Analysis of Cluster Randomization Trials in Health
    Research. Arnold.
    Bell, R. M. & McCaffrey, D. F. (2002). Bias reduction in standard errors for linear regression
    with multi-stage samples. Survey Methodology 28(2), 169–181 (the CR2 degrees of freedom).

    Examples
    --------
    >>> f = pd.DataFrame({"system_a": ["mem"], "system_b": ["rag"], "diff": [3.0], "se": [1.0]})
    >>> out = comparison_power(f, delta=[3.0])         # normal reference: (1.96 + 0.84)·se
    >>> round(float(out.loc[0, "detectable_effect"]), 2), round(float(out.loc[0, "power_at_3"]), 3)
    (2.8, 0.851)
    """
    missing = [c for c in NEEDS if c not in compared]
    if missing:
        raise VerdictError(f"comparison_power needs a md.compare result (columns {', '.join(NEEDS)}); "
                           f"this frame lacks {', '.join(missing)}.")
    if not 0 < alpha < 1 or not 0 < power < 1:
        raise VerdictError(f"alpha and power must lie strictly between 0 and 1, got alpha={alpha!r}, power={power!r}.")
    deltas = [] if delta is None else [float(d) for d in np.atleast_1d(delta)]
    if any(not math.isfinite(d) or d < 0 for d in deltas):
        raise VerdictError(f"delta must be differences of 0 points or more, got {delta!r}.")
    df = compared.attrs.get("df")
    df = math.inf if df is None else float(df)
    out = compared[list(NEEDS)].copy()
    out["df"] = np.nan if math.isinf(df) else df
    ses = out["se"].to_numpy(dtype=float)
    usable = np.isfinite(ses) & (ses > 0)
    out["detectable_effect"] = [design_detectable_effect(se, df, alpha=alpha, power=power) if ok else np.nan
                                for se, ok in zip(ses, usable)]
    for d in deltas:
        out[f"power_at_{d:g}"] = [design_power(d, se, df, alpha=alpha) if ok else np.nan for se, ok in zip(ses, usable)]
    reference = "normal (percentile bootstrap SE)" if math.isinf(df) else f"t({df:g})"
    notes = [n for n in compared.attrs.get("notes", [])]
    notes.append(Note(f"detectable effect: the smallest true difference the two-sided test at α = {alpha:g} per "
                      f"comparison finds with power {power:g}, from each comparison's standard error and a {reference} "
                      "reference", code="detectable-effect"))
    if (~usable).any():
        notes.append(Note(f"{int((~usable).sum())} comparisons without a positive standard error: no detectable "
                          "effect", code="no-standard-error", severity="caution"))
    out.attrs = {**compared.attrs, "function": "comparison_power", "alpha": alpha, "power": power,
                 "notes": notes}
    kinds = declare(points=("diff", "se", "detectable_effect"), real=("df",),
                    probability=[f"power_at_{d:g}" for d in deltas])
    return as_result(out, kinds)
