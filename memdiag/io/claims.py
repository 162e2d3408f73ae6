"""Reading claims (SPEC §7.6): the comparisons a paper states, from a YAML, JSON or CSV file, a
DataFrame or a list of mappings, each claim checked field by field.

A file goes through the strict readers (:func:`memdiag.io.strict.read_yaml`,
:func:`memdiag.io.strict.read_json`, :func:`memdiag.io.csv_text.read_csv`): compression, caps,
binary content and UTF-8, a key twice, a header line twice — each refused naming the file. A CSV is
read as text (an id ``007`` stays ``007``); numbers are read from the fields that hold numbers.
:func:`memdiag.audit_claims` (:mod:`memdiag.audit.claims`) recomputes each claim.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from memdiag.core.checks import KINDS
from memdiag.errors import VerdictError, where
from memdiag.io.csv_text import is_empty, read_csv
from memdiag.io.opening import logical_suffix
from memdiag.io.strict import read_json, read_yaml

__all__ = ["CLAIM_FIELDS", "DIRECTIONS", "MARGIN_DIRECTIONS", "NUMBER_FIELDS", "read_claims"]

#: Fields of a claim (:func:`read_claims`).
CLAIM_FIELDS: tuple[str, ...] = ("id", "family", "scheme", "benchmark", "metric", "system_a", "system_b",
                                 "threshold", "direction", "margin", "design", "reported_value", "reported_diff",
                                 "reported_p", "tolerance")
#: The fields that hold numbers (NaN when absent).
NUMBER_FIELDS: tuple[str, ...] = ("threshold", "margin", "reported_value", "reported_diff", "reported_p", "tolerance")
#: Directions of a difference claim and the sign they claim.
DIRECTIONS: dict[str, int] = {"greater": 1, "less": -1, "different": 0}
#: Directions tested against a margin (points): equivalence (TOST) and non-inferiority (SPEC §5.6).
MARGIN_DIRECTIONS: dict[str, str] = {"equivalent": "equivalence", "not-worse": "noninferiority"}

#: What the file is called in messages.
WHAT = "claims file"


def read_claims(source: str | Path | pd.DataFrame | Sequence[Mapping]) -> pd.DataFrame:
    """Read claims from a YAML, JSON or CSV file, a DataFrame or a list of mappings.

    Parameters
    ----------
    source
        A ``.yaml``/``.yml``/``.json`` file holding a list of claims (or ``{claims: [...]}``),
        a ``.csv`` with one claim per row, a DataFrame, or a list of dicts. Fields:

        - ``id`` (required, unique) and ``family`` (claims adjusted together by Holm);
        - ``scheme`` (official aggregation: built-in name or scheme file) and/or ``benchmark``
          (keeps the verdict rows of that benchmark; when no scheme is given and the benchmark
          names a built-in scheme, that scheme is used);
        - ``metric`` (default ``accuracy``), ``design`` (``iid``, ``stratified``, ``cluster``,
          ``stratified-cluster``; default: the scheme's);
        - ``system_a`` and either ``system_b`` (a comparison) or ``threshold`` (system vs a
          number, in points);
        - ``direction``: ``greater`` (a > b), ``less`` (a < b), ``different``, ``equivalent``
          (|a − b| < margin: "matches", "ties", "remains competitive") or ``not-worse``
          (a > b − margin);
        - ``margin`` (points): the equivalence or non-inferiority margin, needed by
          ``equivalent`` and ``not-worse`` (comparisons only);
        - optional ``reported_value`` (a's score as published, points), ``reported_diff``
          (a − b, points), ``reported_p``, ``tolerance`` (points; see :func:`audit_claims`).

    Returns
    -------
    pandas.DataFrame
        One row per claim with every field of :data:`CLAIM_FIELDS` (missing ones None/NaN).

    Raises
    ------
    VerdictError
        Unreadable file, unknown field, missing or repeated id, no system_a, neither or both of
        system_b and threshold, an unknown direction or design, a number that is not one —
        naming the file, the claim and the field.

    References
    ----------
    SPEC §7.6 (claims audit: the fields of a claim) and SPEC §5.6 (equivalence and
    non-inferiority margins).

    Examples
    --------
    >>> claims = read_claims([
    ...     {"id": "mem-wins", "family": "locomo", "system_a": "mem", "system_b": "rag",
    ...      "direction": "greater", "reported_diff": 3.5},
    ...     {"id": "mem-50", "system_a": "mem", "threshold": 50, "direction": "greater"}])
    >>> claims["id"].tolist(), claims["direction"].tolist(), claims["threshold"].tolist()[1]
    (['mem-wins', 'mem-50'], ['greater', 'greater'], 50.0)
    >>> read_claims([{"id": "x", "system_a": "mem", "direction": "greater"}])
    Traceback (most recent call last):
    ...
    memdiag.errors.VerdictError: <claims>, record claim 1 ('x'), field 'system_b': give either system_b (a comparison) or threshold (a system vs a number).
    """
    origin = "<claims>"
    if isinstance(source, pd.DataFrame):
        records = source.to_dict("records")
    elif isinstance(source, (str, Path)):
        path = Path(source)
        origin = str(path)
        suffix = logical_suffix(path)
        if suffix in (".csv", ".tsv"):
            records = read_csv(path, WHAT).to_dict("records")
        elif suffix in {".yaml", ".yml", ".json"}:
            # no duplicate key, no alias bomb
            loaded = read_json(path, WHAT) if suffix == ".json" else read_yaml(path, WHAT)
            records = loaded.get("claims") if isinstance(loaded, Mapping) else loaded
            if not isinstance(records, list):
                raise VerdictError(f"{where(origin)}: expected a list of claims (or 'claims: [...]'), got "
                                   f"{type(loaded).__name__}.")
        elif not path.is_file():
            raise VerdictError(f"{where(origin)}: no such claims file. Check the path.")
        else:
            raise VerdictError(f"{where(origin)}: unknown claims format '{path.suffix}'. Use .yaml, .json or .csv.")
    else:
        records = list(source)
    if not records:
        raise VerdictError(f"{where(origin)}: holds no claim.")
    rows = [_claim(record, origin, k) for k, record in enumerate(records, start=1)]
    ids = [r["id"] for r in rows]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise VerdictError(f"{where(origin, None, 'id')}: claim id {repeated[0]!r} is used "
                           f"{ids.count(repeated[0])} times. Give each claim its own id.")
    return pd.DataFrame(rows, columns=list(CLAIM_FIELDS))


def _claim(record: object, origin: str, k: int) -> dict:
    """One claim, checked and normalised (strings stripped, numbers as float)."""
    if not isinstance(record, Mapping):
        raise VerdictError(f"{where(origin, f'claim {k}')}: a claim is a mapping of fields, got {record!r:.60}.")
    unknown = [str(key) for key in record if key not in CLAIM_FIELDS]
    if unknown:
        raise VerdictError(f"{where(origin, f'claim {k}', unknown[0])}: unknown field (known: "
                           f"{', '.join(CLAIM_FIELDS)}). Fix its spelling or remove it.")
    claim = {key: (None if is_empty(record.get(key)) else record.get(key)) for key in CLAIM_FIELDS}
    label = f"claim {k}" + (f" ({claim['id']!r})" if claim["id"] is not None else "")

    def fail(field: str, message: str) -> VerdictError:
        return VerdictError(f"{where(origin, label, field)}: {message}")

    for key in CLAIM_FIELDS:
        if key not in NUMBER_FIELDS and claim[key] is not None:
            claim[key] = str(claim[key]).strip()
    for key in NUMBER_FIELDS:
        if claim[key] is not None:
            if isinstance(claim[key], bool):
                raise fail(key, f"{claim[key]!r} is not a number.")
            try:
                claim[key] = float(claim[key])
            except (TypeError, ValueError, OverflowError):
                raise fail(key, f"{claim[key]!r} is not a number.") from None
            if not math.isfinite(claim[key]):
                raise fail(key, f"{claim[key]!r} is not a finite number.")
        else:
            claim[key] = math.nan
    if claim["tolerance"] < 0:
        raise fail("tolerance", f"{claim['tolerance']!r} is negative; a tolerance is 0 or more points.")
    if not 0 <= claim["reported_p"] <= 1 and not math.isnan(claim["reported_p"]):
        raise fail("reported_p", f"{claim['reported_p']!r} is not a p-value (between 0 and 1).")
    if claim["id"] is None:
        raise fail("id", "every claim needs an id.")
    if claim["system_a"] is None:
        raise fail("system_a", "every claim names the system it is about (system_a).")
    if (claim["system_b"] is None) == math.isnan(claim["threshold"]):
        raise fail("system_b", "give either system_b (a comparison) or threshold (a system vs a number).")
    direction = (claim["direction"] or "").lower()
    if direction not in DIRECTIONS and direction not in MARGIN_DIRECTIONS:
        raise fail("direction", f"{claim['direction']!r} is not greater, less, different, equivalent or not-worse.")
    claim["direction"] = direction
    if direction in MARGIN_DIRECTIONS:
        if claim["system_b"] is None:
            raise fail("direction", f"'{direction}' compares two systems; give system_b.")
        if math.isnan(claim["margin"]) or not claim["margin"] > 0:
            raise fail("margin", f"'{direction}' needs a positive margin in points (e.g. margin: 2.0).")
    elif not math.isnan(claim["margin"]):
        raise fail("margin", f"a margin is for the directions equivalent and not-worse, not {direction!r}.")
    if claim["design"] is not None and claim["design"] not in KINDS:
        raise fail("design", f"{claim['design']!r} is not a design ({', '.join(KINDS)}).")
    claim["metric"] = claim["metric"] or "accuracy"
    return claim
