"""The canonical long schema of per-query verdicts (SPEC §1), as data.

Every reader in :mod:`memdiag.io.readers` returns a DataFrame with these columns; every public
function accepts one. Columns not listed here (per-query metrics such as ``f1``, ``bleu``,
``llm_confidence``, a source's raw category label ``source_category``, ``question`` text, the
:data:`ANSWER_TEXT` columns) are kept as they are.
"""

from __future__ import annotations

#: Required columns: who answered, which query, the judged score in [0, 1] (NaN = no usable verdict).
REQUIRED: tuple[str, ...] = ("system", "query_id", "score")

#: Per-query string attributes (one value per query, shared by all systems).
QUERY_ATTRIBUTES: tuple[str, ...] = ("benchmark", "cluster", "stratum", "category", "phase", "pair_id")

#: Per-(system, query) 0/1 labels (SPEC §3).
BINARY_LABELS: tuple[str, ...] = ("sufficient", "result_covered", "path_covered")

#: Per-(system, query) costs (SPEC §1).
COSTS: tuple[str, ...] = ("input_tokens", "output_tokens", "evidence_tokens", "latency_s")

#: Per-(system, query) texts kept where a release has them, for per-query replay: the expected
#: (gold) answer and the system's response. The question text is ``question``.
ANSWER_TEXT: tuple[str, ...] = ("expected", "response")

#: Provenance columns added by the readers so that errors can name file and record.
PROVENANCE: tuple[str, ...] = ("source_file", "source_record")

#: The rater of a verdict when several judges judged the same answers (absent: one judge).
JUDGE = "judge"

#: Which end-to-end run of a system a verdict belongs to, when a system was run several times
#: (absent: one run). Distinct from ``repeat``, a judge's repeated judgment of one answer (SPEC §1.3).
RUN = "run"

#: The canonical column order (``repeat`` defaults to 0).
CANONICAL: tuple[str, ...] = REQUIRED + ("repeat", JUDGE, RUN) + QUERY_ATTRIBUTES + BINARY_LABELS + COSTS

#: Canonical LoCoMo categories: the LoCoMo paper's integers (SPEC §6) -> canonical name.
LOCOMO_CATEGORIES: dict[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}

#: The ten LoCoMo-10 conversations in release order (conversation index 0..9).
LOCOMO_CONVERSATIONS: tuple[str, ...] = (
    "conv-26", "conv-30", "conv-41", "conv-42", "conv-43",
    "conv-44", "conv-47", "conv-48", "conv-49", "conv-50",
)


def locomo_query_id(conversation: int, position: int, adversarial: bool = False) -> str:
    """Canonical LoCoMo query id from the conversation index (0-9) and the 0-based position.

    The position counts non-adversarial questions only (``adversarial=False``), or adversarial
    questions only (``adversarial=True``), in release order within the conversation, so that
    releases that dropped category 5 align with those that kept it.

    >>> locomo_query_id(0, 5)
    'locomo:conv-26:005'
    >>> locomo_query_id(7, 2, adversarial=True)
    'locomo:conv-48:adv002'
    """
    conv = LOCOMO_CONVERSATIONS[conversation]
    return f"locomo:{conv}:{'adv' if adversarial else ''}{position:03d}"
