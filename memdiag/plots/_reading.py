"""What a figure says about how its numbers were made, read from the result frame it draws.

STYLE: a figure never writes "Holm" (or 95%, or a test's name) unless the frame's ``attrs`` or
columns say so (:mod:`memdiag.core.provenance`). These helpers turn ``attrs["correction"]``,
``attrs["confidence_level"]``, the p-value columns and the ``test`` column into the words of
legends and axis labels, and fail soft: a frame without the key gets neutral wording ("adjusted
p", "interval"). The significance level of markers and stars is α = 1 − the frame's confidence
level (:func:`alpha`), and the warnings attached to a result (its notes of severity
``"warning"``) are lines of the figure that draws it (:func:`warning_lines`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd

from memdiag.core.checks import CORRECTION_NAMES, alpha_text  # noqa: F401 (alpha_text: the figures read it here)
from memdiag.core.escape import one_line
from memdiag.core.notes import most_severe_first
from memdiag.plots._names import in_text

#: Significance level of the markers and stars of a frame that states neither ``attrs["alpha"]``
#: nor ``attrs["confidence_level"]``.
ALPHA = 0.05
#: Short names for column headers.
CORRECTION_SHORT: dict[str, str] = {"holm": "Holm", "bonferroni": "Bonferroni", "fdr_bh": "BH"}
#: Columns that may hold the family-adjusted p-value, in order of preference.
ADJUSTED_P: tuple[str, ...] = ("p_adj", "p_adjusted")
MINUS = "\u2212"


def alpha(frame: pd.DataFrame) -> float:
    """The significance level: ``attrs["alpha"]`` when set, else 1 − ``attrs["confidence_level"]``
    (the level the frame's intervals and tests were made at), else 0.05.

    >>> f = pd.DataFrame(); f.attrs["confidence_level"] = 0.9
    >>> alpha(f), alpha(pd.DataFrame())
    (0.1, 0.05)
    """
    if "alpha" in frame.attrs:
        return float(frame.attrs["alpha"])
    value = frame.attrs.get("confidence_level")
    return ALPHA if value is None else level_alpha(value)


def level_alpha(confidence_level: float) -> float:
    """α = 1 − the confidence level, without the binary rounding error (``1 - 0.95`` is
    0.050000000000000044; this is 0.05).

    >>> level_alpha(0.95), level_alpha(0.9), level_alpha(0.99)
    (0.05, 0.1, 0.01)
    """
    return round(1.0 - float(confidence_level), 12)


def warning_lines(frame: pd.DataFrame, labels: Mapping[str, str] | None = None) -> list[str]:
    """The warnings attached to a result — its notes of severity ``"warning"``, each once — as the
    lines a figure drawing it adds to its notes (``"Warning: ..."``), the systems under their labels.

    >>> from memdiag.core.notes import Note
    >>> f = pd.DataFrame(); f.attrs["notes"] = ["B = 200", Note("rag fails conv-3", severity="warning")]
    >>> warning_lines(f, {"rag": "RAG"})
    ['Warning: RAG fails conv-3']
    """
    return [f"Warning: {in_text(one_line(str(n)), labels)}" for n in most_severe_first(frame.attrs.get("notes", []))
            if n.severity == "warning"]

def labels_of(frame: pd.DataFrame, labels: Mapping[str, str] | None) -> dict[str, str] | None:
    """The aliases to draw: ``labels`` when given, else ``frame.attrs["labels"]`` (or None)."""
    if labels is not None:
        return dict(labels)
    found = frame.attrs.get("labels")
    return dict(found) if isinstance(found, Mapping) else None


def adjusted_p_column(frame: pd.DataFrame) -> str | None:
    """The column holding the family-adjusted p-value (``p_adj``), or None."""
    return next((c for c in ADJUSTED_P if c in frame.columns), None)


def correction(frame: pd.DataFrame) -> str:
    """``"Holm-adjusted p"``, ``"Benjamini–Hochberg-adjusted p"`` … as ``attrs["correction"]``
    says; ``"adjusted p"`` when the frame does not say which adjustment it used.

    >>> f = pd.DataFrame({"p_adj": [0.01]}); f.attrs["correction"] = "bonferroni"
    >>> correction(f)
    'Bonferroni-adjusted p'
    """
    name = frame.attrs.get("correction")
    if name is None:
        return "adjusted p"
    if name == "none":
        return "unadjusted p"
    return f"{CORRECTION_NAMES.get(name, str(name))}-adjusted p"


def p_header(frame: pd.DataFrame) -> str:
    """A column header for the adjusted p: ``"p (Holm)"``, ``"p (BH)"``; ``"adj. p"`` when the
    frame does not name its adjustment, ``"p"`` when it says none was made.

    >>> f = pd.DataFrame({"p_adj": [0.01]}); f.attrs["correction"] = "fdr_bh"
    >>> p_header(f)
    'p (BH)'
    """
    name = frame.attrs.get("correction")
    if name is None:
        return "adj. p"
    if name == "none":
        return "p"
    return f"p ({CORRECTION_SHORT.get(name, str(name))})"


def level(frame: pd.DataFrame) -> str:
    """``"95% interval"`` from ``attrs["confidence_level"]``; ``"interval"`` when absent."""
    value = frame.attrs.get("confidence_level")
    return "interval" if value is None else f"{100 * float(value):g}% interval"


def named_tests(frame: pd.DataFrame) -> str:
    """The test(s) behind the p-values: the distinct values of a ``test`` column (or
    ``attrs["test"]``) joined with " / "; ``""`` when the frame does not say."""
    if "test" in frame.columns:
        return " / ".join(str(t) for t in dict.fromkeys(frame["test"].dropna()) if str(t))
    return str(frame.attrs.get("test", ""))


def p_text(p: float, alpha_: float = ALPHA, floor: bool = False) -> str:
    """A p-value for a figure: ``< 0.001``, else two significant figures (three when two would
    put it on the other side of ``alpha_``); ``–`` when undefined. ``floor``: the p sits at its
    Monte-Carlo floor (``p_floor``), so it is a bound, ``< p``, as the tables print it (SPEC §4.4).

    >>> [p_text(v) for v in (3e-14, 0.00053, 0.0312, 0.0496, 0.4035, 1.0, float("nan"))]
    ['< 0.001', '< 0.001', '0.031', '0.0496', '0.40', '1.0', '–']
    >>> p_text(0.0086, floor=True)
    '< 0.0086'
    """
    if p is None or (isinstance(p, float) and math.isnan(p)) or pd.isna(p):
        return "–"
    if p < 0.001:
        return "< 0.001"
    if floor:
        return "< " + p_text(p, alpha_)
    text = f"{float(f'{p:.2g}'):.{max(2 - 1 - math.floor(math.log10(p)), 1)}f}"
    if (float(text) < alpha_) != (p < alpha_):
        text = f"{float(f'{p:.3g}'):.{max(3 - 1 - math.floor(math.log10(p)), 1)}f}"
    return text


def group_label(row: Mapping) -> str:
    """A ``by=`` group as figures name it: the category integer beside its name where the row
    has one (``1 (multi-hop)``, SPEC §6.2), else the group; on one line.

    >>> group_label({"group": "multi-hop", "category_id": 1}), group_label({"group": "a\\nb"})
    ('1 (multi-hop)', 'a b')
    """
    cid, group = row.get("category_id"), one_line(row["group"])
    return f"{int(cid)} ({group})" if cid is not None and pd.notna(cid) else group


def group_note(frame: pd.DataFrame) -> str:
    """The line a figure of one ``by=`` group adds to its notes ("" for a frame without groups):
    which group it shows and, for categories, the naming convention."""
    if "group" not in frame.columns or frame.empty:
        return ""
    row = frame.iloc[0]
    by = frame.attrs.get("by") or (row["by"] if "by" in frame.columns else "group")
    convention = frame.attrs.get("convention")
    named = (f" (the dataset's integer with the {convention} name, SPEC §6.2)"
             if convention and pd.notna(row.get("category_id", None)) else "")
    return f"Only the queries of {one_line(by)} {group_label(row)}{named}."
