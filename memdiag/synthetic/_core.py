"""What the simulators share: per-system values and rate tables, the bivariate normal, rounded truths.

Also :func:`load_table`, which reads a default table from ``memdiag/synthetic/data/`` (package
data), and the constants common to several simulators.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from importlib.resources import files

import numpy as np
import yaml
from scipy.integrate import quad
from scipy.special import ndtr

#: Default sufficiency rule (``sufficiency=True``): P(sufficient | correct), P(sufficient | wrong).
DEFAULT_SUFFICIENCY = (0.9, 0.3)

#: The memory systems of the MEME and MemoryAgentBench examples (reference first).
BENCHMARK_SYSTEMS: tuple[str, ...] = ("raw-rag", "mem0", "zep", "a-mem", "memmachine")

#: Truth values are rounded to this many decimals so that ``truth_*.json`` is the same everywhere.
_TRUTH_DECIMALS = 10


def load_table(name: str) -> dict:
    """The default table ``memdiag/synthetic/data/<name>.yaml`` (package data), as a dict."""
    return yaml.safe_load((files("memdiag.synthetic") / "data" / f"{name}.yaml").read_text(encoding="utf-8"))


def per_system(value: float | Mapping[str, float] | None, systems: Sequence[str], name: str,
                scalar_for: Sequence[str]) -> dict[str, float]:
    """A scalar (applied to ``scalar_for``) or a mapping, as a dict over the systems it covers."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        unknown = [s for s in value if s not in systems]
        if unknown:
            raise ValueError(f"{name} names unknown systems {unknown} (systems: {list(systems)}).")
        return {s: float(v) for s, v in value.items()}
    return {s: float(value) for s in scalar_for}


def bvn(h: float, k: float, rho: float) -> float:
    """P(X < h, Y < k) for a standard bivariate normal with correlation ``rho`` (|rho| < 1).

    Φ₂(h, k; ρ) = ∫_{−∞}^{h} φ(x) Φ((k − ρx)/√(1 − ρ²)) dx (one-dimensional quadrature).
    """
    if h == -np.inf or k == -np.inf:
        return 0.0
    if h == np.inf:
        return float(ndtr(k))
    if k == np.inf:
        return float(ndtr(h))
    root = math.sqrt(1 - rho * rho)
    value, _ = quad(lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi) * ndtr((k - rho * x) / root),
                    -np.inf, h, epsabs=1e-13, epsrel=1e-12, limit=200)
    return float(value)


def round_truth(value: object) -> object:
    """Truth values rounded to :data:`_TRUTH_DECIMALS` (floats inside dicts, lists and tuples)."""
    if isinstance(value, Mapping):
        return {k: round_truth(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [round_truth(v) for v in value]
    if isinstance(value, (float, np.floating)):
        return round(float(value), _TRUTH_DECIMALS)
    return value


def rate_table(value: float | Mapping | None, systems: Sequence[str], keys: Sequence[str], name: str,
                default: Mapping, generic: float | Mapping, allowed: Sequence[str] | None = None,
                canonical=lambda k: k) -> dict[str, dict[str, float]]:
    """Per-system, per-key probabilities from a scalar, a system -> scalar map or a system -> key map.

    ``None`` takes the rows of ``default`` (``generic`` for a system not in it). A row may name
    more keys than needed (any of ``allowed``) but must cover ``keys``.
    """
    allowed = list(keys if allowed is None else allowed)
    given = value is not None
    table = value if given else default
    if given and not isinstance(table, Mapping):
        table = {s: table for s in systems}
    unknown = [s for s in table if s not in systems] if given else []
    if unknown:
        raise ValueError(f"{name} names unknown systems {unknown} (systems: {list(systems)}).")
    out = {}
    for s in systems:
        row = table.get(s, None if given else generic)
        if row is None:
            raise ValueError(f"{name} has no entry for system '{s}'. Give a rate, or one per "
                             f"{'task' if 'ER' in keys else 'source'}.")
        if isinstance(row, Mapping):
            row = {canonical(k): v for k, v in row.items()}
            odd = [k for k in row if k not in allowed]
            lacking = [k for k in keys if k not in row]
            if odd or lacking:
                raise ValueError(f"{name}['{s}']: " + (f"unknown names {odd}" if odd else f"no rate for {lacking}")
                                 + f" (use {', '.join(allowed)}).")
            row = {k: float(row[k]) for k in keys}
        else:
            row = {k: float(row) for k in keys}
        bad = {k: v for k, v in row.items() if not 0 <= v <= 1}
        if bad:
            raise ValueError(f"{name}['{s}']: {bad} are not probabilities in [0, 1].")
        out[s] = row
    return out


def pairs_table(value: Mapping | bool, systems: Sequence[str], name: str, default: Mapping,
                 generic: tuple[float, float]) -> dict[str, tuple[float, float]] | None:
    """System -> (P(label | correct), P(label | wrong)); True takes the defaults, False none."""
    if value is False:
        return None
    table = default if value is True else value
    if value is not True:
        unknown = [s for s in table if s not in systems]
        missing = [s for s in systems if s not in table]
        if unknown or missing:
            raise ValueError(f"{name} must give (P | correct, P | wrong) for exactly the systems "
                             f"{list(systems)} (unknown {unknown}, missing {missing}).")
    out = {s: tuple(map(float, table.get(s, generic))) for s in systems}
    bad = [s for s, pair in out.items() if len(pair) != 2 or not all(0 <= v <= 1 for v in pair)]
    if bad:
        raise ValueError(f"{name}: the entries of {bad} are not two probabilities.")
    return out


def check_systems(systems: Sequence[str], reference: str | None) -> list[str]:
    """The system names as distinct strings, with ``reference`` among them (unless None)."""
    systems = list(map(str, systems))
    if not systems or len(set(systems)) != len(systems):
        raise ValueError(f"need distinct system names, got {systems}.")
    if reference is not None and reference not in systems:
        raise ValueError(f"reference '{reference}' is not among the systems {systems}.")
    return systems
