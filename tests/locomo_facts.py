"""LoCoMo-10 facts written out from the dataset and its paper, independently of memdiag's own tables:
the tests compare what the readers produce with these (docs/spec.md §1.7, the canonical ids, and
the table of category conventions)."""

from __future__ import annotations

#: Category integer -> the LoCoMo paper's name (Mem0's harness names 1 and 3, 4 the other way round).
PAPER_CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

#: The ten conversations, in the dataset's order.
CONVERSATIONS = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43",
                 "conv-44", "conv-47", "conv-48", "conv-49", "conv-50")


def query_id(conversation: int, position: int) -> str:
    """The canonical id of the non-adversarial question at 0-based ``position`` of a conversation."""
    return f"locomo:{CONVERSATIONS[conversation]}:{position:03d}"
