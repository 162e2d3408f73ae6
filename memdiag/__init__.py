"""memdiag: what an LLM agent-memory system really adds over plain retrieval."""

from memdiag.errors import SchemeError, VerdictError
from memdiag.verdicts import Panel, align, check, read_verdicts, validate

__version__ = "0.1.0"

__all__ = ["Panel", "SchemeError", "VerdictError", "align", "check", "read_verdicts", "validate",
           "__version__"]
