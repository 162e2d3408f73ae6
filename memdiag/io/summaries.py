"""Reading a summaries file (SPEC §7.7): a paper's published numbers and claims as YAML, checked for
structure, with every number keeping the text it was written as.

The file goes through :func:`memdiag.io.strict.read_yaml` (compression, caps, binary content and
UTF-8, a key twice, an alias bomb — each refused naming the file and line).
:func:`memdiag.audit_summaries` (:mod:`memdiag.audit.summaries`) runs the checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import yaml

from memdiag.errors import VerdictError, where
from memdiag.io.strict import StrictLoader, read_yaml

__all__ = ["CHECK_NAMES", "Written", "read_summaries"]

#: The checks a summaries file may name, in the order :func:`memdiag.audit_summaries` lists them.
CHECK_NAMES: tuple[str, ...] = ("granularity", "mcnemar", "power", "floor", "family", "first", "aggregate")


class Written(float):
    """A number read from a summaries file, with the text it was written as (``12.0`` keeps one
    decimal, which ``float`` forgets)."""

    text: str

    def __new__(cls, value: float, text: str) -> Written:
        number = super().__new__(cls, value)
        number.text = text
        return number


class _Loader(StrictLoader):
    """The strict SafeLoader (no duplicate key, no alias bomb) whose floats remember their text."""


def _written_float(loader: _Loader, node: yaml.ScalarNode) -> Written:
    return Written(yaml.SafeLoader.construct_yaml_float(loader, node), loader.construct_scalar(node))


_Loader.add_constructor("tag:yaml.org,2002:float", _written_float)


def read_summaries(source: str | Path | Mapping) -> dict:
    """Read a summaries file (or a mapping of the same shape) and check its structure.

    Parameters
    ----------
    source
        A summaries YAML file (``source``, ``alpha``, ``benchmarks``, ``checks``; the format of
        SPEC §7.7), or the same as a mapping. Numbers keep the decimals they were written with.

    Returns
    -------
    dict
        ``{"source", "alpha", "benchmarks", "checks", "origin"}`` with each check a dict.

    Raises
    ------
    VerdictError
        An unreadable file, an unknown top-level key or check type, a check without an id, a
        repeated id, a benchmark a check names but the file does not define — naming the file,
        the check and the field.

    References
    ----------
    SPEC §7.7 (audit from published summaries: the summaries file); the worked examples
    ``data/example/summaries_memory_tax.yaml`` (Memory Tax review) and
    ``data/example/summaries_raw_rag.yaml`` (Raw-RAG paper).

    Examples
    --------
    >>> spec = read_summaries({"source": "a paper", "benchmarks": {"LongMemEval-s": {"n": 500}},
    ...                        "checks": [{"id": "tax", "check": "granularity", "benchmark": "LongMemEval-s",
    ...                                    "value": "12.0"}]})
    >>> spec["alpha"], spec["benchmarks"], [c["id"] for c in spec["checks"]]
    (0.05, {'LongMemEval-s': {'n': 500}}, ['tax'])
    >>> read_summaries({"checks": [{"id": "x", "check": "guess"}]})
    Traceback (most recent call last):
    ...
    memdiag.errors.VerdictError: <summaries>, record check 1 ('x'), field 'check': 'guess' is not a check (granularity, mcnemar, power, floor, family, first, aggregate).
    """
    origin = "<summaries>"
    if isinstance(source, Mapping):
        spec = dict(source)
    else:
        origin = str(source)
        spec = read_yaml(Path(source), "summaries file", loader=_Loader)  # no duplicate key, no alias bomb
    if not isinstance(spec, Mapping):
        raise VerdictError(f"{where(origin)}: a summaries file is a mapping with 'checks' (and 'benchmarks').")
    unknown = [k for k in spec if k not in ("source", "alpha", "benchmarks", "checks")]
    if unknown:
        raise VerdictError(f"{where(origin, field=str(unknown[0]))}: unknown key (known: source, alpha, benchmarks, "
                           "checks).")
    checks = spec.get("checks")
    if not isinstance(checks, list) or not checks:
        raise VerdictError(f"{where(origin, field='checks')}: give a list of checks.")
    benchmarks = spec.get("benchmarks") or {}
    if not isinstance(benchmarks, Mapping):
        raise VerdictError(f"{where(origin, field='benchmarks')}: give a mapping name -> {{n: ..., clusters: ...}}.")
    seen: set[str] = set()
    for k, check in enumerate(checks, start=1):
        label = f"check {k}"
        if not isinstance(check, Mapping):
            raise VerdictError(f"{where(origin, label)}: a check is a mapping of fields, got {check!r:.60}.")
        if "id" not in check:
            raise VerdictError(f"{where(origin, label, 'id')}: every check needs an id.")
        label = f"check {k} ({check['id']!r})"
        if str(check["id"]) in seen:
            raise VerdictError(f"{where(origin, label, 'id')}: the id is used twice. Give each check its own id.")
        seen.add(str(check["id"]))
        if check.get("check") not in CHECK_NAMES:
            raise VerdictError(f"{where(origin, label, 'check')}: {check.get('check')!r} is not a check "
                               f"({', '.join(CHECK_NAMES)}).")
        name = check.get("benchmark")
        if name is not None and name not in benchmarks:
            raise VerdictError(f"{where(origin, label, 'benchmark')}: {name!r} is not among the file's benchmarks "
                               f"({', '.join(map(str, benchmarks)) or 'none'}). Define it under 'benchmarks'.")
    alpha = float(spec.get("alpha", 0.05))
    return {"source": spec.get("source"), "alpha": alpha, "benchmarks": dict(benchmarks),
            "checks": [dict(c) for c in checks], "origin": origin}
