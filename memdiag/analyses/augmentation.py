"""Source augmentation: which queries the reference, a memory system and the same system with raw
history added to its retrieval answer (Memory Tax review: "retrieval also draws a small number of
raw-history chunks and reranks both sources together"; SimpleMem's tax falls from 12.0 to 5.2).

The three correctness sets cut the queries into eight regions; :func:`augmentation` counts them
and says what each means for the memory system's tax and benefit, and
:func:`memdiag.plots.venn3` draws them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from memdiag.core.kinds import declare
from memdiag.core.notes import Note
from memdiag.core.provenance import stamp
from memdiag.engine.pairs import binarize
from memdiag.errors import VerdictError
from memdiag.panel.prepare import Prepared, as_prepared

__all__ = ["AUGMENTED", "augmentation", "augmented_pairs"]

#: How an augmented system is named after its memory system: ``mem0+raw``, ``mem0+source``.
AUGMENTED = re.compile(r"^(?P<memory>.+?)\s*\+\s*(?:raw|source|rag)$", re.IGNORECASE)

#: What each region (memberships in reference, memory, augmented) means.
MEANING: dict[str, str] = {
    "111": "all three answer",
    "110": "answered without augmentation, lost with it",
    "101": "tax repaired by augmentation",
    "100": "tax augmentation does not repair",
    "011": "benefit kept with augmentation",
    "010": "benefit lost with augmentation",
    "001": "new benefit of augmentation",
    "000": "no system answers",
}


def augmented_pairs(systems: Sequence[str]) -> list[tuple[str, str]]:
    """``(memory, augmented)`` for every system named ``<memory>+raw`` (or ``+source``, ``+rag``)
    whose memory system is present too.

    >>> augmented_pairs(["raw-rag", "mem0", "mem0+raw", "zep", "a-mem+source"])
    [('mem0', 'mem0+raw')]
    """
    present = set(systems)
    out = []
    for name in systems:
        match = AUGMENTED.match(name)
        if match and match["memory"] in present:
            out.append((match["memory"], name))
    return out
def augmentation(
    data: pd.DataFrame | Prepared,
    memory: str,
    *,
    reference: str,
    augmented: str | None = None,
) -> pd.DataFrame:
    """The eight regions of the reference's, the memory system's and the augmented system's
    correct queries (Memory Tax review, source augmentation; SPEC §2, §8).

    Parameters
    ----------
    data
        :func:`memdiag.prepare` output, or canonical verdicts (prepared with the defaults),
        holding the three systems; the scheme's query selection and the alignment policies are
        chosen there, as for :func:`memdiag.flows`, and so is the correctness: score > the
        prepared threshold (``md.prepare(threshold=...)``; None, the default: 0.5, as the flows).
    memory
        The memory system.
    reference
        The reference (raw-history RAG).
    augmented
        The memory system with raw-source augmentation (default ``<memory>+raw``).

    Returns
    -------
    pandas.DataFrame
        One row per region in the order of :data:`MEANING`: ``region`` (memberships in
        reference, memory, augmented: ``"101"`` = the reference and the augmented system
        answer, the memory system does not), ``reference, memory, augmented`` (bool),
        ``count``, ``share`` (points of the n aligned queries), ``meaning``. ``attrs["systems"]``
        is ``[reference, memory, augmented]``; ``attrs["flows"]`` the tax and benefit of the memory
        and the augmented system against the reference (counts), also in the notes.

    Raises
    ------
    VerdictError
        The three systems are not all different, one of them is not in the data, bad verdicts,
        unpaired queries under ``missing="error"`` or an unknown policy.
    SchemeError
        An unknown scheme, or one that keeps no query of the data.

    Notes
    -----
    tax(M) = #{R right, M wrong} = n₁₀₀ + n₁₀₁; tax(M+raw) = n₁₀₀ + n₁₁₀; benefit(M) = n₀₁₀ +
    n₀₁₁; benefit(M+raw) = n₀₀₁ + n₀₁₁. The repaired tax n₁₀₁ against the new loss n₁₁₀ is
    what augmentation changes. Counts only: the flows and pairwise tests give the intervals.

    References
    ----------
    SPEC §2 (benefit and tax flows against a reference) and SPEC §8 (the three-set Venn
    diagram); Memory Tax review, source augmentation (retrieval also draws raw-history chunks
    and reranks both sources together; SimpleMem's tax falls from 12.0 to 5.2).

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["rag"] * 4 + ["mem"] * 4 + ["mem+raw"] * 4,
    ...                    "query_id": list("abcd") * 3,
    ...                    "score": [1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0]})
    >>> out = augmentation(df, "mem", reference="rag")
    >>> out.set_index("region")["count"].to_dict()
    {'111': 1, '110': 0, '101': 1, '100': 0, '011': 1, '010': 0, '001': 0, '000': 1}
    >>> out.attrs["notes"][-1]
    'tax against rag: mem 1 (25.0 pts), mem+raw 0 (0.0 pts); benefit: mem 1 (25.0 pts), mem+raw 1 (25.0 pts)'
    """
    augmented = f"{memory}+raw" if augmented is None else augmented
    systems = [reference, memory, augmented]
    if len(set(systems)) != 3:
        raise VerdictError(f"augmentation needs three different systems (reference, memory, augmented); got "
                           f"{', '.join(systems)}.")
    prepared = as_prepared(data, systems=systems)
    threshold = prepared.threshold
    correct = binarize(prepared.panel.scores, threshold)
    n = prepared.n
    codes = np.array(["".join("1" if c else "0" for c in row) for row in correct])
    rows = []
    for region, meaning in MEANING.items():
        count = int((codes == region).sum())
        rows.append({"region": region, "reference": region[0] == "1", "memory": region[1] == "1",
                     "augmented": region[2] == "1", "count": count, "share": 100 * count / n, "meaning": meaning})
    out = pd.DataFrame(rows)
    c = out.set_index("region")["count"]
    flows = {"tax": {memory: int(c["100"] + c["101"]), augmented: int(c["100"] + c["110"])},
             "benefit": {memory: int(c["010"] + c["011"]), augmented: int(c["001"] + c["011"])}}

    def pts(k: int) -> str:
        return f"{k} ({100 * k / n:.1f} pts)"

    note = Note(f"tax against {reference}: {memory} {pts(flows['tax'][memory])}, {augmented} "
                f"{pts(flows['tax'][augmented])}; benefit: {memory} {pts(flows['benefit'][memory])}, {augmented} "
                f"{pts(flows['benefit'][augmented])}", code="augmentation-flows")
    correct_when = Note(f"correct = score > {0.5 if threshold is None else threshold}", code="threshold")
    return stamp(out, "augmentation", prepared, resampled=False, unit="points", kinds=declare(points=("share",)),
                 notes=[correct_when, note],
                 systems=systems, flows=flows, n=n)
