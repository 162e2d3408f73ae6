"""Canonical ids for records without ids, from the benchmark's own dataset file (SPEC §1.7).

Many releases list records with only their question text, grouped by conversation and sometimes
shuffled within it. Given the dataset the benchmark was run on (LoCoMo-10's ``locomo10.json``:
ten samples, each with a ``sample_id`` and a ``qa`` list of ``question``, ``answer`` (or
``adversarial_answer``) and integer ``category``), each record is matched:

1. by its conversation (the ``cluster`` field: ``conv-26``, a sample id of the dataset, or a name
   ending in the 0-based conversation index, ``locomo_exp_user_3``) and its normalised question
   text (NFKC, case-folded, whitespace collapsed);
2. a text asked more than once in the conversation (conv-48 repeats 11) is resolved by the gold
   answer (``expected``) and the LoCoMo category integer (``category``) when the record has them;
3. questions still alike in text, answer and category are paired in order of occurrence: the
   k-th such record of the file with the k-th such question of the dataset — only when the file
   holds as many of them as the dataset does. Questions of one text that differ in answer or
   category (conv-30 asks one text as a single-hop and as an adversarial question) are never
   paired by order: a record that does not give them is left out.

A record matched to nothing, or one of a group the rules cannot pair one to one (more or fewer
records than questions), is never guessed: it is left out and listed, each with its file, record,
conversation and question, in a warning note. The matched records get the canonical
``query_id`` (``locomo:conv-48:017``), ``benchmark``, ``cluster`` and ``category``; the source's
own category is kept as ``source_category``.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from pathlib import Path

import pandas as pd

from memdiag.core.notes import Note
from memdiag.errors import VerdictError, listing, where
from memdiag.io.outputs import note_input
from memdiag.io.schema import LOCOMO_CATEGORIES, LOCOMO_CONVERSATIONS, locomo_query_id
from memdiag.io.strict import read_json

#: The columns a record needs for matching, and the optional ones that resolve repeated texts.
NEEDED: tuple[str, ...] = ("question", "cluster")
RESOLVING: tuple[str, ...] = ("expected", "category")


def normalise(text: object) -> str:
    """Question or answer text for matching: NFKC, case-folded, whitespace collapsed.

    >>> normalise("  When did  Caroline GO? ") == normalise("when did caroline go?")
    True
    """
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", str(text)).casefold()).strip()


def _code(value: object) -> int | None:
    """A LoCoMo category integer from an int or a digit string, else None."""
    if isinstance(value, bool) or value is None:
        return None
    text = str(value).strip()
    if text.endswith(".0"):
        text = text[:-2]
    return int(text) if text.isdigit() and int(text) in LOCOMO_CATEGORIES else None


@lru_cache(maxsize=8)
def _load(path: str, mtime: float) -> pd.DataFrame:
    data = read_json(path, "dataset file")
    if not isinstance(data, list) or not data or not all(isinstance(s, dict) and "qa" in s for s in data):
        raise VerdictError(f"{path}: not a LoCoMo-style dataset (a list of samples, each with 'sample_id' and "
                           "a 'qa' list). memdiag matches records without ids against LoCoMo-10's locomo10.json.")
    rows = []
    for index, sample in enumerate(data):
        sample_id = str(sample.get("sample_id", index))
        known = sample_id in LOCOMO_CONVERSATIONS
        positions = {False: 0, True: 0}
        for qa in sample["qa"]:
            code = _code(qa.get("category"))
            if code is None or "question" not in qa:
                raise VerdictError(f"{where(path, f'{sample_id} question {sum(positions.values()) + 1}')}: a "
                                   "dataset question needs 'question' and a category 1-5.")
            adversarial = code == 5
            position = positions[adversarial]
            positions[adversarial] += 1
            query_id = locomo_query_id(LOCOMO_CONVERSATIONS.index(sample_id), position, adversarial) if known \
                else f"locomo:{sample_id}:{'adv' if adversarial else ''}{position:03d}"
            answer = qa.get("answer", qa.get("adversarial_answer"))
            rows.append({"conversation": sample_id, "index": index, "query_id": query_id,
                         "text": normalise(qa["question"]), "answer": normalise(answer) if answer is not None else "",
                         "code": code})
    return pd.DataFrame(rows)


def load_dataset(path: str | Path) -> pd.DataFrame:
    """The dataset's questions in dataset order: ``conversation, index, query_id, text, answer, code``.

    Raises
    ------
    VerdictError
        An unreadable file, or one that is not a LoCoMo-style dataset.
    """
    path = Path(path)
    if not path.is_file():
        raise VerdictError(f"{path}: no such dataset file. Give the benchmark's dataset (LoCoMo-10: "
                           "locomo10.json) with --dataset PATH or the recipe's dataset: key.")
    note_input(path)  # an input no output may overwrite (memdiag.io.outputs)
    return _load(str(path.resolve()), path.stat().st_mtime)


def _conversation_of(value: object, samples: list[str]) -> str | None:
    """The dataset sample a record's conversation names (a sample id, or a name ending in the
    0-based index), or None."""
    if value is None or (isinstance(value, float) and value != value):
        return None
    text = str(value).strip()
    if text in samples:
        return text
    match = re.search(r"(\d+)$", text)
    if match and int(match.group(1)) < len(samples):
        return samples[int(match.group(1))]
    return None


def match_dataset(frame: pd.DataFrame, dataset: str | Path, source: object) -> tuple[pd.DataFrame, list[str]]:
    """Give id-less records their canonical ids from ``dataset`` (see the module docstring).

    Parameters
    ----------
    frame
        One row per record, with ``question`` and ``cluster`` (the conversation) and optionally
        ``expected`` (the gold answer) and ``category`` (the LoCoMo integer), and
        ``source_record`` (the record's locator, for the notes).
    dataset
        The benchmark's dataset file (LoCoMo-10's ``locomo10.json``).
    source
        The file the records come from, named in notes and errors.

    Returns
    -------
    tuple of (pandas.DataFrame, list of str)
        The matched rows (their original index kept) with ``query_id``, ``benchmark``,
        ``cluster``, ``category`` (canonical) and ``source_category``; and the notes: how many
        were matched, by order of occurrence, and every record left out, named.

    Raises
    ------
    VerdictError
        A record without question text or conversation field, or a bad dataset file.

    Examples
    --------
    >>> import tempfile, json, os
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "data.json")
    >>> qa = [{"question": "Q?", "answer": "a", "category": 2}, {"question": "Q?", "answer": "b", "category": 1},
    ...       {"question": "R?", "answer": "c", "category": 5}]
    >>> _ = open(path, "w").write(json.dumps([{"sample_id": "conv-26", "qa": qa}]))
    >>> records = pd.DataFrame({"question": ["r?", "q?", "Q?"], "cluster": "conv-26", "expected": ["c", "b", "a"],
    ...                         "source_record": [1, 2, 3]})
    >>> out, notes = match_dataset(records, path, "run.json")
    >>> out["query_id"].tolist()
    ['locomo:conv-26:adv000', 'locomo:conv-26:001', 'locomo:conv-26:000']
    """
    for column in NEEDED:
        if column not in frame:
            raise VerdictError(f"{where(source, None, column)}: matching records without ids to {dataset} needs "
                               f"the question text and the conversation: map question: <field> and "
                               f"cluster: <conversation field> (have: {', '.join(map(str, frame.columns))}).")
    questions = load_dataset(dataset)
    samples = list(dict.fromkeys(questions["conversation"]))
    # conversation -> text -> [(query_id, answer, code)] in dataset order (plain Python: fast)
    index: dict[str, dict[str, list[tuple]]] = {}
    for conversation, text, query_id, answer, code in zip(questions["conversation"], questions["text"],
                                                          questions["query_id"], questions["answer"],
                                                          questions["code"]):
        index.setdefault(conversation, {}).setdefault(text, []).append((query_id, answer, int(code)))
    answers = [normalise(a) if a is not None and a == a else None for a in frame["expected"]] \
        if "expected" in frame else [None] * len(frame)
    codes = [_code(c) for c in frame["category"]] if "category" in frame else [None] * len(frame)
    groups: dict[tuple, list] = {}   # (conversation, text) -> records, in file order
    problems: list[tuple[object, str]] = []
    for row, cluster, question, answer, code in zip(frame.index, frame["cluster"], frame["question"], answers, codes):
        conversation = _conversation_of(cluster, samples)
        text = normalise(question) if isinstance(question, str) and question.strip() else None
        if conversation is None:
            problems.append((row, f"conversation {cluster!r} is not in the dataset"))
        elif text is None or text not in index[conversation]:
            read_as = "" if str(cluster).strip() == conversation else \
                f" (read from {cluster!r} as the conversation index counted from 0)"
            problems.append((row, f"{conversation}{read_as}: no dataset question has this text"))
        else:
            groups.setdefault((conversation, text), []).append((row, answer, code))
    assigned: dict[object, str] = {}
    by_order = 0
    for (conversation, text), records in groups.items():
        candidates = index[conversation][text]
        if len(candidates) == 1 and len(records) == 1:
            assigned[records[0][0]] = candidates[0][0]
            continue
        alike: dict[tuple, list] = {}
        for row, answer, code in records:
            alike.setdefault((answer, code), []).append(row)
        for (answer, code), rows in alike.items():
            pool = [c for c in candidates if (answer is None or c[1] == answer) and (code is None or c[2] == code)]
            if len(pool) != len(rows):
                why = (f"{conversation}: {len(rows)} records and {len(pool)} dataset questions share this text"
                       + (", gold answer" if answer is not None else "") + (" and category" if code is not None else "")
                       + ": cannot pair them one to one")
                problems += [(r, why) for r in rows]
                continue
            if len({(c[1], c[2]) for c in pool}) > 1:  # order would decide between different questions: a guess
                why = (f"{conversation}: {len(rows)} records share this text with {len(pool)} dataset questions that "
                       "differ in gold answer or category, and the records lack the "
                       + " and ".join(n for n, v in (("gold answer", answer), ("category", code)) if v is None)
                       + " that would tell them apart: cannot pair them (map expected: and category:)")
                problems += [(r, why) for r in rows]
                continue
            by_order += len(rows) if len(rows) > 1 else 0
            for r, candidate in zip(rows, pool):   # in order of occurrence
                assigned[r] = candidate[0]
    notes: list[str] = []
    clash = pd.Series(assigned).duplicated(keep=False)
    if clash.any():  # two groups of one text resolved onto one question: never guess, leave them out
        for r in clash.index[clash]:
            problems.append((r, f"matched the same dataset question ({assigned.pop(r)}) as another record"))
    out = frame.loc[[r for r in frame.index if r in assigned]].copy()
    info = questions.set_index("query_id")
    out["query_id"] = [assigned[r] for r in out.index]
    if "category" in out:
        out["source_category"] = out["category"].astype(object)
    out["benchmark"] = "locomo"
    out["cluster"] = info["conversation"].reindex(out["query_id"]).to_numpy()
    out["category"] = info["code"].reindex(out["query_id"]).map(LOCOMO_CATEGORIES).to_numpy()
    notes.append(Note(f"{source}: {len(out)} of {len(frame)} records without ids matched to {Path(dataset).name} "
                      "by conversation and question text"
                      + (f" ({by_order} of them, alike in text, gold answer and category, in order of occurrence)"
                         if by_order else ""), code="dataset-matched", severity="info", concerns=(str(source),)))
    if problems:
        shown = [f"record {frame.loc[r, 'source_record'] if 'source_record' in frame else r} "
                 f"({str(frame.loc[r, 'question'])[:60]!r}): {why}" for r, why in problems]
        notes.append(Note(f"{source}: {len(problems)} records could not be given an id and are left out (never "
                          f"guessed): {listing(shown, len(shown))}", code="dataset-unmatched", severity="warning",
                          concerns=(str(source),)))
    return out, notes
