"""Judge outputs as verdicts: one documented rule for every reader that meets verdict text.

LLM judges answer in words — ``"Yes."``, ``"CORRECT"``, ``"no"``, ``"Yes, because the answer names
the date"`` — and releases store those words instead of 0/1. :func:`parse_verdict` reads them with
the rule of the seed evaluation scripts (LongMemEval's ``evaluate_qa.py`` and mem0's judge: "yes"
in the reply is 1, otherwise 0), made strict: a text is 1, 0 or **no verdict** (None), never a
guess. The readers count the texts that are no verdict, keep them as missing verdicts (NaN, scored
by the missing-verdict policy of SPEC §1) and name them in a note.

Rule
----
1. Booleans and numbers are kept (``True`` -> 1, ``0`` -> 0, ``0.5`` -> 0.5; range checks are
   :func:`memdiag.check`'s job); a numeric text is a number (``" 1 "`` -> 1).
2. Empty cells and ``null``/``none``/``nan``/``n/a`` are missing (NaN), not unparsable.
3. Text is compared case-insensitively after removing surrounding whitespace, quotes, backticks and
   Markdown emphasis (``**Yes**``) and trailing ``.``, ``!``, ``,``, ``;``, ``:``.
   ``yes``, ``correct``, ``true`` -> 1; ``no``, ``incorrect``, ``wrong``, ``false`` -> 0;
   ``partial`` -> 0.5 (the graded label of correct / partial / wrong judges; the phrase
   ``partially correct`` is no verdict).
4. A verdict word followed by a separator (``,``, ``.``, ``:``, ``;``, ``!``, ``-``, ``—``,
   ``(`` or a line break) and an explanation is that verdict: ``"Yes, because …"`` -> 1,
   ``"WRONG - the date differs"`` -> 0.
5. Anything else is no verdict (None): ``"maybe"``, ``"CORRECT?"``, ``"yes and no"``,
   ``"The answer is correct"`` (the word is not first), ``"Yes because"`` (no separator).
"""

from __future__ import annotations

import math
import re

import numpy as np

#: Verdict words (after normalising, rule 3) and their value.
WORDS: dict[str, float] = {
    "yes": 1.0, "correct": 1.0, "true": 1.0,
    "no": 0.0, "incorrect": 0.0, "wrong": 0.0, "false": 0.0,
    "partial": 0.5,  # the graded label of correct / partial / wrong judges ("partially correct" stays no verdict)
}

#: Texts that mean "no value" (rule 2).
MISSING: frozenset[str] = frozenset({"", "nan", "null", "none", "na", "n/a", "#n/a"})

_WRAPPING = " \t\r\n\"'`*_"
_TRAILING = ".!,;:"
_LEADING_WORD = re.compile(r"([a-z]+)\s*(?:[,.:;!(\n—–]|-\s)")


def _normal(text: str) -> str:
    text = text.strip(_WRAPPING).lower()
    previous = None
    while previous != text:
        previous = text
        text = text.rstrip(_TRAILING).strip(_WRAPPING)
    return text


def parse_verdict(value: object) -> float | None:
    """One judge output as a verdict: 1.0, 0.0, a number, NaN (missing) or None (no verdict).

    Parameters
    ----------
    value
        A cell: bool, number, text or None.

    Returns
    -------
    float or None
        1.0 / 0.0 for verdict words, the number for numbers, NaN for an empty cell, None for text
        that is no verdict (see the module's rule; never a guess).

    Examples
    --------
    >>> [parse_verdict(v) for v in ("Yes.", "CORRECT", "WRONG", "no!", "**True**", 1, "0", True)]
    [1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0]
    >>> [parse_verdict(v) for v in ("Yes, because the dates match", "Incorrect - off by a day")]
    [1.0, 0.0]
    >>> [parse_verdict(v) for v in ("maybe", "CORRECT?", "yes and no", "The answer is correct")]
    [None, None, None, None]
    >>> parse_verdict(""), parse_verdict(None), parse_verdict("N/A")
    (nan, nan, nan)
    >>> parse_verdict("partial"), parse_verdict("PARTIAL.")
    (0.5, 0.5)
    """
    if value is None:
        return math.nan
    if isinstance(value, bool | np.bool_ | int | float | np.number):
        try:
            return float(value)
        except OverflowError:  # a 400-digit integer is no verdict (and no float)
            return None
    if not isinstance(value, str):
        return None
    text = _normal(value)
    if text in MISSING:
        return math.nan
    if text in WORDS:
        return WORDS[text]
    try:
        number = float(text)
    except ValueError:
        pass
    else:  # digits too many for a float overflow to inf: no verdict, as for a huge int above
        return None if math.isinf(number) and "inf" not in text else number
    match = _LEADING_WORD.match(value.strip(_WRAPPING).lower())
    if match and match.group(1) in WORDS:
        return WORDS[match.group(1)]
    return None
