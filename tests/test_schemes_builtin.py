"""Built-in schemes as YAML data: the same schemes as memdiag 0.2's Python catalogue, read once.

The oracle is ``OLD``: every field of every built-in scheme as the Python catalogue of
``memdiag/panel/schemes`` (commit 1dddcb0) built it, dumped once with that code and written here
by hand. The YAML files must reproduce it field by field, type included.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

import memdiag as md
from memdiag.io.schema import LOCOMO_CATEGORIES
from memdiag.panel.schemes import (
    BUILTIN,
    LONGMEMEVAL_TYPES,
    MEME_TASKS,
    MEMORYAGENTBENCH_ALIASES,
    MEMORYAGENTBENCH_TREE,
    tree_weights,
)

REPO = Path(__file__).resolve().parents[1]

_DEFAULTS = {"group_by": "category", "include": None, "exclude": (), "exclude_ids": None, "weights": None,
             "gates": (), "phase": None, "required_groups": (), "threshold": 0.5, "expected_n": None,
             "expected_counts": None, "aliases": {}, "design": None, "cluster_from_id": None, "source": "",
             "origin": "built-in"}
_LONGMEMEVAL = ("single-session-user", "single-session-assistant", "single-session-preference",
                "multi-session", "knowledge-update", "temporal-reasoning")
_MAB_SOURCES = ("LongMemEval", "EventQA", "RULER-QA1", "RULER-QA2", "ReDial", "Banking77", "CLINC150", "NLU",
                "TREC-coarse", "TREC-fine", "DetectiveQA", "InfBench-Sum", "FactConsolidation-SH",
                "FactConsolidation-MH")
_MAB_ALIASES = {
    "longmemeval_s*": "LongMemEval", "longmemeval_s": "LongMemEval", "eventqa_full": "EventQA",
    "ruler_qa1_197K": "RULER-QA1", "ruler_qa1": "RULER-QA1", "ruler_qa2_421K": "RULER-QA2",
    "ruler_qa2": "RULER-QA2", "recsys_redial_full": "ReDial", "recsys_redial": "ReDial",
    "icl_banking77_5900shot_balance": "Banking77", "icl_banking77": "Banking77",
    "icl_clinic150_7050shot_balance": "CLINC150", "icl_clinic150": "CLINC150", "clinic150": "CLINC150",
    "icl_nlu_8296shot_balance": "NLU", "icl_nlu": "NLU",
    "icl_trec_coarse_6600shot_balance": "TREC-coarse", "icl_trec_coarse": "TREC-coarse",
    "icl_trec_fine_6400shot_balance": "TREC-fine", "icl_trec_fine": "TREC-fine",
    "detective_qa": "DetectiveQA", "infbench_sum_eng_shots2": "InfBench-Sum", "infbench_sum": "InfBench-Sum",
    "InfBench": "InfBench-Sum", "factconsolidation_sh_262k": "FactConsolidation-SH",
    "factconsolidation_sh": "FactConsolidation-SH", "FactConsolidation single-hop": "FactConsolidation-SH",
    "FC-SH": "FactConsolidation-SH", "factconsolidation_mh_262k": "FactConsolidation-MH",
    "factconsolidation_mh": "FactConsolidation-MH", "FactConsolidation multi-hop": "FactConsolidation-MH",
    "FC-MH": "FactConsolidation-MH",
}
_MAB_TREE = {"AR": ["LongMemEval", "EventQA", "RULER-QA1", "RULER-QA2"],
             "TTL": {"ReDial": 1, "ICL": ["Banking77", "CLINC150", "NLU", "TREC-coarse", "TREC-fine"]},
             "LRU": ["DetectiveQA", "InfBench-Sum"],
             "CR": ["FactConsolidation-SH", "FactConsolidation-MH"]}

#: Every field of the old built-in schemes (commit 1dddcb0), in the old known_schemes() order.
OLD: dict[str, dict] = {name: {**_DEFAULTS, "name": name, **fields} for name, fields in {
    "mean": {"description": "question-weighted mean over every query (per-category columns when present)"},
    "locomo": {
        "exclude": ("adversarial",), "required_groups": ("multi-hop", "temporal", "open-domain", "single-hop"),
        "expected_n": 1540, "design": "cluster",   # issue 13: the 10 conversations are clusters
        "cluster_from_id": "^locomo:(conv-[^:]+):",   # issue 20: canonical ids carry the conversation
        # issue 14: per-category counts (the integers 1-4, SPEC §6.2)
        "expected_counts": {"multi-hop": 282, "temporal": 321, "open-domain": 96, "single-hop": 841},
        "aliases": {"1": "multi-hop", "2": "temporal", "3": "open-domain", "4": "single-hop", "5": "adversarial",
                    "temporal-reasoning": "temporal", "temporal reasoning": "temporal"},
        "description": "LoCoMo-10: category 5 (adversarial) excluded; question-weighted mean over the 1,540 "
                       "included questions and all judge repetitions (multi-hop 282, temporal 321, "
                       "open-domain 96, single-hop 841)",
        "source": "SPEC §6; Raw-RAG paper D.5, D.1.1"},
    "longmemeval": {
        "required_groups": _LONGMEMEVAL, "expected_n": 500,
        "expected_counts": dict(zip(_LONGMEMEVAL, (70, 56, 30, 133, 78, 133))),   # issue 14 (A.2.1)
        "description": "LongMemEval-S: question-weighted mean over the 500 examples (six question types)",
        "source": "SPEC §6; Raw-RAG paper D.5, D.1.2"},
    "longmemeval-no-abs": {
        "exclude_ids": "_abs$", "required_groups": _LONGMEMEVAL, "expected_n": 470,
        "expected_counts": dict(zip(_LONGMEMEVAL, (64, 56, 30, 121, 72, 127))),   # issue 14 (A.2.3)
        "description": "LongMemEval-S without the 30 abstention questions (ids ending '_abs'): "
                       "question-weighted mean over 470",
        "source": "SPEC §6; Raw-RAG paper D.1.2"},
    "meme": {
        "weights": ["ER", "Agg", "Tr", "Del", "Cas", "Abs"], "gates": ("Del", "Cas", "Abs"), "phase": "after",
        "required_groups": ("ER", "Agg", "Tr", "Del", "Cas", "Abs"), "expected_n": 694,
        "expected_counts": {"Del": 100, "Cas": 164, "Abs": 130, "ER + Agg + Tr": 300},   # issue 14 (A.5.2)
        "aliases": {"exact recall": "ER", "aggregation": "Agg", "tracking": "Tr", "deletion": "Del",
                    "cascade": "Cas", "absence": "Abs"},
        "design": "cluster",
        "description": "MEME: task scores from after-phase answers; a Del/Cas/Abs pass counts only if the "
                       "before-phase twin (same pair_id) was correct; Overall = macro-average of the six "
                       "tasks ER, Agg, Tr, Del, Cas, Abs",
        "source": "SPEC §6; Raw-RAG paper D.5, D.1.3 (694 after-phase questions, A.5)"},
    "memoryagentbench": {
        "group_by": "stratum", "weights": _MAB_TREE, "required_groups": _MAB_SOURCES, "expected_n": 2071,
        "aliases": _MAB_ALIASES, "design": "stratified",
        "description": "MemoryAgentBench: 14 source scores -> AR = mean(LongMemEval, EventQA, RULER-QA1, "
                       "RULER-QA2); TTL = ½(ReDial + mean of 5 ICL sources); LRU = mean(DetectiveQA, "
                       "InfBench-Sum); CR = mean(FactConsolidation-SH, -MH); Overall = mean(AR, TTL, LRU, CR)",
        "source": "SPEC §6; Raw-RAG paper D.5 eq. 6, D.1.4"},
    "personamem": {
        "expected_n": 5000, "design": "cluster",   # issue 13: personas are clusters when given
        "description": "PersonaMem-v2: question-weighted multiple-choice accuracy over 5,000 questions",
        "source": "SPEC §6; Raw-RAG paper D.5, D.1.5"},
}.items()}


def builtin_file(name: str):
    return resources.files("memdiag.panel.schemes") / "builtin" / f"{name}.yaml"


#: Built-in schemes added since (issue 22: LongMemEval task-averaged accuracy, with and without abstention).
NEW = ("longmemeval-task-avg", "longmemeval-no-abs-task-avg")


def test_known_schemes_keep_the_old_order_and_name_the_builtin_files():
    assert tuple(n for n in md.known_schemes() if n not in NEW) == tuple(OLD)
    assert md.known_schemes() == ("mean", *sorted(n for n in (*OLD, *NEW) if n != "mean"))
    assert tuple(n for n in BUILTIN if n not in NEW) == tuple(OLD)
    files = sorted(p.name for p in (resources.files("memdiag.panel.schemes") / "builtin").iterdir())
    assert files == sorted(f"{name}.yaml" for name in (*OLD, *NEW))


@pytest.mark.parametrize("name", list(OLD))
def test_builtin_yaml_builds_the_old_scheme_field_by_field(name):
    scheme = md.get_scheme(name)
    for key, old in OLD[name].items():
        new = getattr(scheme, key)
        assert new == old and type(new) is type(old), f"{name}.{key}: {new!r} != {old!r}"
        if isinstance(old, dict):  # same order, so tables and notes list labels as before
            assert list(new) == list(old), f"{name}.{key}: order {list(new)} != {list(old)}"
    assert {f.name for f in dataclasses.fields(md.Scheme)} == set(OLD[name])


@pytest.mark.parametrize("name", list(OLD))
def test_builtin_file_reads_as_a_user_scheme_file(tmp_path, name):
    # A user who copies a built-in file gets the same scheme from the public loader.
    path = tmp_path / f"{name}.yaml"
    path.write_text(builtin_file(name).read_text(encoding="utf-8"), encoding="utf-8")
    scheme = md.Scheme.from_file(path)
    assert scheme.origin == str(path)
    assert dataclasses.replace(scheme, origin="built-in") == md.get_scheme(name)


def test_builtin_schemes_are_read_once():
    assert md.get_scheme("MEME") is md.get_scheme("meme") is BUILTIN["meme"]
    assert md.get_scheme("memory-agent-bench") is md.get_scheme("memoryagentbench")


def test_locomo_aliases_agree_with_the_schema_categories():
    locomo = md.get_scheme("locomo")
    assert {k: v for k, v in locomo.aliases.items() if k.isdigit()} == {
        str(k): v for k, v in LOCOMO_CATEGORIES.items()}
    assert locomo.required_groups == tuple(LOCOMO_CATEGORIES[k] for k in (1, 2, 3, 4))
    assert locomo.exclude == (LOCOMO_CATEGORIES[5],)
    assert locomo.canonical(5) == "adversarial" and locomo.canonical("Temporal Reasoning") == "temporal"


def test_benchmark_constants_are_read_from_the_builtin_files():
    # SPEC §6 table, by hand: LongMemEval-S types and counts (sum 500; 470 without the 30 '_abs').
    assert LONGMEMEVAL_TYPES == {"single-session-user": 70, "single-session-assistant": 56,
                                 "single-session-preference": 30, "multi-session": 133,
                                 "knowledge-update": 78, "temporal-reasoning": 133}
    assert tuple(LONGMEMEVAL_TYPES) == md.get_scheme("longmemeval").required_groups
    assert sum(LONGMEMEVAL_TYPES.values()) == md.get_scheme("longmemeval").expected_n == 500
    assert MEME_TASKS == {"ER": ("exact recall",), "Agg": ("aggregation",), "Tr": ("tracking",),
                          "Del": ("deletion",), "Cas": ("cascade",), "Abs": ("absence",)}
    assert list(MEME_TASKS) == md.get_scheme("meme").weights
    assert MEMORYAGENTBENCH_TREE == _MAB_TREE and MEMORYAGENTBENCH_TREE is md.get_scheme("memoryagentbench").weights
    assert MEMORYAGENTBENCH_ALIASES == _MAB_ALIASES
    assert tuple(tree_weights(MEMORYAGENTBENCH_TREE)[0]) == _MAB_SOURCES


def test_reading_a_builtin_scheme_imports_no_pandas():
    code = ("import sys; from memdiag.panel.schemes import get_scheme, MEME_TASKS; "
            "get_scheme('memoryagentbench').canonical('icl_nlu'); "
            "print(sorted(m for m in ('pandas', 'scipy', 'matplotlib') if m in sys.modules))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
