"""A whole analysis -> one folder: report.md, a self-contained report.html, figures, tables and
analysis.json (SPEC §1–§8; ARCHITECTURE: ``report/``).

:func:`report` runs every diagnostic the data support — validation, official scores, memory
benefit and tax against the reference, source augmentation, pairwise tests and the omnibus, rank
stability, a parameter sweep, evidence diagnostics, native vs complete-store vs raw evidence, the
cost–accuracy plane, cost and latency, judge agreement, the write-action audit and the claims
audit — and writes::

    OUT/report.md        sections, each with one sentence saying what it shows, its tables (with
                         their notes and signature line) and figures
    OUT/report.html      the same, self-contained (figures embedded as base64 PNG)
    OUT/figures/         every figure as PDF, SVG and PNG (memdiag.plots.save)
    OUT/tables/          every table as LaTeX booktabs (.tex), .csv and .md (memdiag.tables.render)
    OUT/analysis.json    every number, the memdiag version, input SHA-256 hashes, settings and
                         policies: enough for :func:`report_from_json` to re-run it exactly
    OUT/manifest.json    the SHA-256 of every file above: what memdiag may replace later

The folder is built next to ``OUT`` under a temporary name and swapped in at the end, so a failed
run never leaves a folder that looks complete, and an existing ``OUT`` is replaced only if every
file in it is in its manifest (:mod:`~memdiag.reporting.publish`). Nothing in the outputs depends on the clock: the
same inputs and seed give byte-identical tables and analysis.json. :func:`demo` runs the whole
report on the bundled ``data/example``.

The package keeps one job per module: :mod:`~memdiag.reporting.context` holds what the sections
read and return, :mod:`~memdiag.reporting.sections` computes each section (its figures and captions
from the views, :mod:`memdiag.views`), :mod:`~memdiag.reporting.answers` reads from them the
answers the report leads with, :mod:`~memdiag.reporting.provenance` records the inputs and writes
analysis.json, :mod:`~memdiag.reporting.render` writes Markdown, HTML (``templates/report.html.j2``),
tables and figures, and :mod:`~memdiag.reporting.publish` stages the folder and renames it into
place. This module holds the public functions and the run that ties them together.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from memdiag import __version__
from memdiag.engine.options import Options, as_options
from memdiag.errors import VerdictError
from memdiag.io.ingestion_log import read_ingestion_log
from memdiag.io.outputs import check_outputs, recording
from memdiag.io.strict import read_json
from memdiag.io.systems_table import read_systems_table
from memdiag.io.verdicts import read_verdicts
from memdiag.io.write_log import read_write_log
from memdiag.panel.schemes import Scheme
from memdiag.plots._jobs import FigureJobs
from memdiag.reporting.answers import answers_section
from memdiag.reporting.context import Analysis, context, policies
from memdiag.reporting.provenance import (
    ANALYSIS_FORMAT,
    Settings,
    _check_recipes,
    _claims_input,
    _reread_verdicts,
    _rerun_input,
    _scheme_input,
    _side_input,
    _verdict_recipe,
    relocate_inputs,
    resolved_from,
)
from memdiag.reporting.publish import (
    WRITE_STEPS,
    _bar,
    _publish,
    check_inputs,
    resolve_target,
)
from memdiag.reporting.render import _figure_files, _save_figures
from memdiag.reporting.sections import SECTIONS
from memdiag.tables.aliases import aliases

__all__ = ["demo", "report", "report_from_json"]

#: Bootstrap replicates of :func:`demo` (fast enough on 2 cores: the demo takes well under 60 s).
DEMO_RESAMPLES = 20_000
#: Where the bundled example lives, relative to the package folder (a source checkout).
EXAMPLE = Path(__file__).resolve().parent.parent.parent / "data" / "example"


# --------------------------------------------------------------------------------------------
# the analysis
# --------------------------------------------------------------------------------------------
def _analyse(df: pd.DataFrame, settings: Settings, inputs: dict, scheme: Scheme | None,
             systems_table, claims, write_log, bar: tqdm, ingestion_log=None,
             labels: Mapping[str, str] | None = None) -> Analysis:
    ctx, why, n_queries = context(df, settings, scheme, systems_table, claims, write_log, ingestion_log)
    ctx.labels = dict(labels or {})
    signature_attrs = {"scheme": scheme.name if scheme else None, "design": ctx.design,
                       "n_clusters": ctx.prepared.n_clusters,
                       "n_resamples": settings.n_resamples, "seed": settings.seed,
                       "confidence_level": settings.confidence_level, "inference": settings.inference,
                       "correction": settings.correction, "threshold": settings.threshold,
                       **ctx.policies, "judges": ctx.prepared.judges}
    sections = []
    figures = FigureJobs()  # each section's figures are drawn in worker processes from here on
    try:
        with warnings.catch_warnings(record=True) as caught:
            for step in SECTIONS:
                bar.set_postfix_str(step.__name__.strip("_").removesuffix("_section"))
                section = step(ctx)
                for name, (draw, _) in section.figures.items():
                    figures.submit(name, draw)
                sections.append(section)
                bar.update()
            sections.insert(0, answers_section(sections, ctx))  # the answers lead, read from the sections
    except BaseException:
        figures.stop()
        raise
    provenance = {
        "memdiag_version": __version__, "analysis_format": ANALYSIS_FORMAT,
        "settings": asdict(settings), "inputs": inputs,
        "design": {"used": ctx.design, "why": why},
        "systems": list(ctx.systems), "n_queries": n_queries,
        "policies": policies(ctx, why, n_queries),
        "warnings": list(dict.fromkeys(str(w.message) for w in caught)),
    }
    return Analysis(sections, provenance, signature_attrs, figures, ctx.labels)


def _input_files(df: pd.DataFrame, *sides: object) -> list[str]:
    """The files a report reads: every verdict file and the side inputs given as paths."""
    files = [str(f) for f in pd.unique(df["source_file"].dropna())] if "source_file" in df else []
    return files + [str(s) for s in sides if isinstance(s, (str, Path)) and Path(s).is_file()]


def _prepare(df, settings: Settings, scheme, systems_table, claims, write_log,
             read_options: Mapping | None, bar: tqdm, out: Path | None = None, ingestion_log=None,
             labels: Mapping[str, str] | None = None) -> Analysis:
    """Read every input, record how to read it again, and run the analysis (refusing first an
    ``out`` folder that holds an input)."""
    if not isinstance(df, pd.DataFrame):
        df = read_verdicts(df, **(read_options or {}))
    if out is not None:
        origin = scheme.origin if isinstance(scheme, Scheme) else scheme
        check_inputs(out, _input_files(df, origin, systems_table, claims, write_log, ingestion_log))
    scheme_obj, scheme_recipe = _scheme_input(scheme)
    table, table_recipe = _side_input(systems_table, read_systems_table)
    claims_value, claims_recipe = _claims_input(claims)
    log, log_recipe = _side_input(write_log, read_write_log)
    times, times_recipe = _side_input(ingestion_log, read_ingestion_log)
    inputs = {"verdicts": _verdict_recipe(df, read_options), "scheme": scheme_recipe,
              "systems_table": table_recipe, "claims": claims_recipe, "write_log": log_recipe}
    if times_recipe is not None:
        inputs["ingestion_log"] = times_recipe
    if labels:
        inputs["labels"] = {str(k): str(v) for k, v in labels.items()}
    return _analyse(df, settings, inputs, scheme_obj, table, claims_value, log, bar, ingestion_log=times,
                    labels=aliases(df, table, labels))


# --------------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------------
#: The keywords of :func:`memdiag.prepare` a report's ``prepare`` mapping takes (recorded flat in
#: analysis.json: ``inputs.scheme`` and ``settings``).
PREPARE_KEYS: tuple[str, ...] = ("scheme", "missing", "verdict_missing", "judges", "label_missing", "cluster_missing",
                                 "design", "threshold")
#: Their defaults (those of :func:`memdiag.prepare`, but the report's threshold 0.5: its flows count
#: correct answers).
_PREPARE_DEFAULTS = {"scheme": None, "missing": "error", "verdict_missing": "as-wrong", "judges": None,
                     "label_missing": "exclude", "cluster_missing": "error", "design": None, "threshold": 0.5}


def _choices(prepare: Mapping | None, options: Options | Mapping | None) -> tuple[dict, Options]:
    """The data choices (``prepare``, completed with the defaults) and the options of a report."""
    if prepare is not None and not isinstance(prepare, Mapping):
        raise TypeError(f"prepare must be a mapping of md.prepare keywords ({', '.join(PREPARE_KEYS)}) or None; "
                        f"got {type(prepare).__name__}.")
    given = dict(prepare or {})
    extra = sorted(set(given) - set(PREPARE_KEYS))
    if extra:
        raise VerdictError(f"prepare has no key {', '.join(map(repr, extra))}: a report analyses every system on "
                           f"the score; its data choices are {', '.join(PREPARE_KEYS)}.")
    opts = as_options(options)
    design = given.pop("design", None)
    if design is not None and opts.design is not None and design != opts.design:
        raise VerdictError(f"two designs: prepare={{'design': {design!r}}} and options design {opts.design!r}; "
                           "give one.")
    if design is not None:
        opts = opts.replace(design=design)
    if given.get("threshold", 0.5) is None:   # the flows need a cut: None is the report's 0.5
        given["threshold"] = 0.5
    return {**_PREPARE_DEFAULTS, **given}, opts


def _settings(reference: str, choices: Mapping, opts: Options) -> Settings:
    return Settings(reference, opts.design, opts.n_resamples, opts.seed, opts.confidence_level, opts.correction,
                    choices["threshold"], choices["missing"], choices["verdict_missing"], choices["judges"],
                    choices["label_missing"], opts.inference, choices["cluster_missing"])


def report(
    df: pd.DataFrame | str | Path | Sequence[str | Path],
    reference: str,
    out: str | Path,
    *,
    prepare: Mapping | None = None,
    options: Options | Mapping | None = None,
    systems_table: str | Path | pd.DataFrame | None = None,
    claims: str | Path | pd.DataFrame | Sequence[Mapping] | None = None,
    write_log: str | Path | pd.DataFrame | None = None,
    ingestion_log: str | Path | pd.DataFrame | None = None,
    labels: Mapping[str, str] | None = None,
    read_options: Mapping | None = None,
    progress: bool | None = None,
    force: bool = False,
) -> Path:
    """Run the whole analysis and write it as a folder: report.md, report.html, figures, tables,
    analysis.json.

    Parameters
    ----------
    df
        Canonical verdicts (:func:`memdiag.read_verdicts`), or the files / folders / globs to
        read (with ``read_options``).
    reference
        The reference system of the flows and the forest plot (usually raw-history RAG).
    out
        The report folder (a symbolic link is followed). It is written under a temporary name
        next to it and swapped in when complete; an existing folder is replaced only if it is
        empty or a report memdiag wrote (every file listed in its ``manifest.json`` with its
        SHA-256), and never when it holds one of the inputs or is read-only.
    prepare
        The data choices, as keywords of :func:`memdiag.prepare` (the report reads the verdicts
        itself, and records each choice in analysis.json for :func:`report_from_json`):
        ``scheme`` (official aggregation: built-in name, YAML/JSON file, mapping or
        :class:`~memdiag.panel.schemes.Scheme`; scores, accuracy intervals, tests and ranks are
        recomputed under it in every replicate; flows and evidence use the queries it keeps),
        ``missing`` and ``verdict_missing`` (the alignment policies, :func:`memdiag.align`),
        ``judges`` (the judge policy of the scores when several judges rated the answers),
        ``label_missing`` (what the evidence diagnostics do with queries without a
        ``sufficient`` label) and ``cluster_missing`` (queries without a cluster label when the
        others have one: ``"error"`` refuses, naming them; ``"own"`` makes each a cluster of its
        own, counted in a note), ``design`` (as ``options``' design) and ``threshold`` (a query is
        correct when its score > threshold, default 0.5: what the flows, the replay, the cluster
        check, the cost per correct answer and judge agreement count; the scores, pairwise tests
        and ranks compare the scores as given). None or a missing key: the default of
        :func:`memdiag.prepare`, but 0.5 for the threshold.
    options
        :class:`memdiag.Options` (a mapping of its fields, or None for the defaults): reads every
        field — the design of every interval and bootstrap test (None: the benchmark's rule,
        :func:`memdiag.engine.designs.resolve_design`, recorded with its reason), the inference
        (``auto``: the SPEC §4.1 rule; ``percentile``, ``jackknife`` or ``cr2``), the bootstrap
        replicates B (at least 1) and seed, the interval level and the multiplicity correction;
        all recorded in analysis.json.
    systems_table
        System-level facts keyed by ``system`` (CSV path or frame): ``tokens_per_query`` (cost)
        and ``store_tokens`` (bubble area) feed the cost–accuracy section.
    claims
        Claims to audit (file or table, see :func:`memdiag.read_claims`).
    write_log
        A memory decision log (CSV/JSONL path or frame) for the write-action audit.
    ingestion_log
        Per-item ingestion durations (CSV/JSONL path or frame, :func:`memdiag.read_ingestion_log`)
        for the cumulative ingestion time of the cost-and-latency section.
    read_options
        Keyword arguments of :func:`memdiag.read_verdicts` (``format``, ``system``,
        ``fields``, ``records``, ``judge``, ``join``, ``recipe``), used to read ``df`` when it is
        paths and recorded for the re-run.
    progress
        Show a progress bar on stderr; default: when stderr is a terminal.
    force
        Replace ``out`` even when it holds files memdiag did not write (they are deleted).
    labels
        Short names of the systems, ``{system: label}`` (``--alias``); they add to a recipe's
        ``labels:`` and a ``label`` column of the systems table (:mod:`memdiag.tables.aliases`), are drawn
        in the figures, printed in place of the names in the tables for people (report.md,
        report.html, tables/*.md and *.tex; tables/*.csv and analysis.json keep the names), shown
        beside the names in the validation table and recorded in analysis.json.

    Returns
    -------
    pathlib.Path
        The report folder (symbolic links resolved).

    Raises
    ------
    VerdictError, SchemeError
        Unreadable input, a bad setting, a reference not in the data, a scheme that keeps no
        query — raised before anything is written.
    FileExistsError
        ``out`` is a file, read-only, holds an input, or holds a file memdiag did not write
        (named) and ``force`` is not given — raised before the analysis runs.
    memdiag.reporting.publish.Interrupted
        SIGINT or SIGTERM while the report was written: the staging folder is removed and
        ``out`` is as it was (a KeyboardInterrupt).

    Notes
    -----
    Sections (each omitted, with one line saying why, when the data cannot support it): data
    and validation (SPEC §1); official scores and accuracy intervals (§6, §4); benefit and tax
    against the reference with the Venn grid (§2); source augmentation (three-set Venn) for every
    system named ``<memory>+raw`` beside its memory system (§8); pairwise tests, omnibus, rank
    stability, forest plot and pairwise matrix (§4–§5); parameter sensitivity when the reference
    is one setting of runs named ``PARAM=VALUE`` (Figure 4); with clustered queries, which pairwise
    conclusions of an analysis that treats queries as independent survive the cluster design
    (§4.1); evidence diagnostics when a ``sufficient`` column exists (§3); native vs complete-store
    vs raw evidence when the systems table tags runs by ``variant`` (Figure 5); the cost–accuracy
    bubble when a cost exists (§8); cost and latency (per-query costs, ratios, system-level costs,
    the ingestion curve with an ingestion log; Tables 6 and 32, Figure 1 right); judge agreement
    when answers were judged more than once (§7); the write-action audit with a decision log (§7);
    the claims audit with claims. Every table carries its notes and signature line. analysis.json holds
    every number, the memdiag version, the SHA-256 of every input, the settings and policies.

    References
    ----------
    SPEC §1 (input), SPEC §2 (flows), SPEC §3 (evidence), SPEC §4 and §4.1 (designs and the
    interval rule), SPEC §5 (exact tests and multiplicity), SPEC §6 (official aggregation),
    SPEC §7 (the other diagnostics) and SPEC §8 (figures); Raw-RAG paper C.6 (the paired
    analysis), Figure 1, Figure 4, Figure 5, Tables 6 and 32; Memory Tax review (benefit, tax,
    the Venn comparison, the cost–accuracy bubble, source augmentation).

    Examples
    --------
    Six questions answered by two systems, read from a CSV file; the report is written to a
    folder and re-runs exactly from its analysis.json (:func:`report_from_json`):

    >>> import json, tempfile
    >>> from pathlib import Path
    >>> tmp = tempfile.TemporaryDirectory()
    >>> folder = Path(tmp.name)
    >>> pd.DataFrame({"system": ["rag"] * 6 + ["mem"] * 6, "query_id": list("abcdef") * 2,
    ...               "score": [1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0]}).to_csv(folder / "verdicts.csv", index=False)
    >>> out = report(folder / "verdicts.csv", "rag", folder / "report", options={"n_resamples": 100}, progress=False)
    >>> sorted(p.name for p in out.iterdir())
    ['analysis.json', 'figures', 'manifest.json', 'replay', 'report.html', 'report.md', 'tables']
    >>> settings = json.loads((out / "analysis.json").read_text())["settings"]
    >>> settings["reference"], settings["n_resamples"], settings["correction"]
    ('rag', 100, 'holm')
    >>> sorted(p.stem for p in (out / "figures").glob("*.svg"))
    ['forest', 'matrix', 'venn']
    >>> tmp.cleanup()
    """
    choices, opts = _choices(prepare, options)
    settings = _settings(reference, choices, opts)
    scheme = choices["scheme"]
    target = resolve_target(out, force)
    with recording(), _bar(len(SECTIONS) + len(WRITE_STEPS), progress) as bar:
        analysis = _prepare(df, settings, scheme, systems_table, claims, write_log, read_options, bar,
                            out=target, ingestion_log=ingestion_log, labels=labels)
        with analysis.figures:  # stops the figures' workers however publishing ends
            return _publish(analysis, target, bar, force)


def report_from_json(path: str | Path, out: str | Path, progress: bool | None = None,
                     force: bool = False) -> Path:
    """Re-run a report exactly from its analysis.json into ``out``.

    Every input file is read again from the recorded path and must have the recorded SHA-256;
    the re-read verdicts must hash to the recorded data hash. Same inputs, settings and seed
    give byte-identical tables and analysis.json.

    Parameters
    ----------
    path
        The analysis.json of a report :func:`report` (or :func:`demo`) wrote.
    out
        The folder of the new report (replaced under the rules of :func:`report`).
    progress
        Show a progress bar on stderr; default: when stderr is a terminal.
    force
        Replace ``out`` even when it holds files memdiag did not write (they are deleted).

    Returns
    -------
    pathlib.Path
        The new report folder (symbolic links resolved).

    Raises
    ------
    VerdictError
        The file is not an analysis.json of this format, a recorded setting or input is missing
        or of the wrong type (never replaced by a default), an input changed or is gone, or the
        report was made from data that cannot be read again (an in-memory frame).
    FileExistsError
        As for :func:`report`; also when ``path`` itself lies in ``out``.
    memdiag.reporting.publish.Interrupted
        SIGINT or SIGTERM while the report was written (``out`` is as it was).

    References
    ----------
    SPEC §4.6 (determinism: same inputs, settings and seed give the same numbers) and SPEC §1.6
    (released layouts, read again from the recorded files and recipe); NEP 19 (random number
    generator policy: seeds recorded as ints).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> tmp = tempfile.TemporaryDirectory()
    >>> folder = Path(tmp.name)
    >>> pd.DataFrame({"system": ["rag"] * 6 + ["mem"] * 6, "query_id": list("abcdef") * 2,
    ...               "score": [1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0]}).to_csv(folder / "verdicts.csv", index=False)
    >>> first = report(folder / "verdicts.csv", "rag", folder / "report", options={"n_resamples": 100}, progress=False)
    >>> again = report_from_json(first / "analysis.json", folder / "again", progress=False)
    >>> (again / "analysis.json").read_bytes() == (first / "analysis.json").read_bytes()
    True
    >>> (again / "tables" / "flows.csv").read_bytes() == (first / "tables" / "flows.csv").read_bytes()
    True
    >>> tmp.cleanup()
    """
    check_inputs(resolve_target(out, force), [path])
    document = read_json(path, "analysis.json")  # the strict reader: encodings, a key twice, the file named
    if not isinstance(document, dict) or document.get("analysis_format") != ANALYSIS_FORMAT:
        raise VerdictError(f"{path}: not an analysis.json of format {ANALYSIS_FORMAT}.")
    settings = Settings.from_json(document.get("settings"), path)
    inputs = document.get("inputs")
    _check_recipes(inputs, path)
    inputs = relocate_inputs(inputs, resolved_from(Path(path).resolve().parent))
    df = _reread_verdicts(inputs["verdicts"], path)
    spec = inputs["verdicts"]["rerun"]
    if isinstance(spec.get("recipe"), Mapping):  # read through a recipe: keep it (and its files) recorded
        read_options = {"recipe": spec["recipe"]["path"], "files": spec.get("given_files"), "join": spec.get("join"),
                        **({"allow_outside": True} if spec.get("allow_outside") is True else {})}
    else:
        read_options = {k: v for k, v in spec.items() if k in ("format", "fields", "records", "judge", "join")}
    # the recorded settings are flat (as every analysis.json before 0.3): the data choices and the options
    prepare = {"scheme": _rerun_input(inputs.get("scheme")), "missing": settings.missing,
               "verdict_missing": settings.verdict_missing, "judges": settings.judges,
               "label_missing": settings.label_missing, "cluster_missing": settings.cluster_missing,
               "threshold": settings.threshold}
    options = Options(design=settings.design, inference=settings.inference, n_resamples=settings.n_resamples,
                      seed=settings.seed, confidence_level=settings.confidence_level, correction=settings.correction)
    return report(df, settings.reference, out, prepare=prepare, options=options,
                  systems_table=_rerun_input(inputs.get("systems_table")), claims=_rerun_input(inputs.get("claims")),
                  write_log=_rerun_input(inputs.get("write_log")),
                  ingestion_log=_rerun_input(inputs.get("ingestion_log")), labels=_recorded_labels(inputs, path),
                  read_options=read_options, progress=progress, force=force)


def _recorded_labels(inputs: Mapping, origin: str | Path) -> dict[str, str] | None:
    """The ``labels`` (aliases) an analysis.json recorded, checked (None when it has none)."""
    labels = inputs.get("labels")
    if labels is None:
        return None
    if not isinstance(labels, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in labels.items()):
        raise VerdictError(f"{origin}, field 'inputs.labels': not a mapping of system to label; the file was changed "
                           "or is damaged.")
    return dict(labels)
def demo(out: str | Path = "memdiag-demo", figures: str | Path | None = None, *,
         options: Options | Mapping | None = None, progress: bool | None = None, force: bool = False) -> Path:
    """The whole report on the bundled example (``data/example``), or only its figures.

    Parameters
    ----------
    out
        Report folder (default ``memdiag-demo``).
    figures
        When given, write only the figures (PDF, SVG, PNG) into this folder instead of a report:
        ``memdiag demo --figures figures/`` regenerates the repository's ``figures/``.
    options
        :class:`memdiag.Options` (a mapping of its fields, or None for the defaults): reads every
        field, as :func:`report`; the design defaults to ``cluster`` (the example's
        conversations) and B to :data:`DEMO_RESAMPLES` (20,000). Printed in every signature line.
    progress
        Show a progress bar on stderr; default: when stderr is a terminal.
    force
        Replace a folder (or figure files) memdiag did not write (see :func:`report`).

    Returns
    -------
    pathlib.Path
        The report folder, or the ``figures`` folder when ``figures`` is given.

    Raises
    ------
    VerdictError
        The example data are not there (memdiag installed without its source checkout), or
        ``n_resamples=0``.
    FileExistsError
        ``out`` (or a figure file) holds files memdiag did not write and ``force`` is not given.
    memdiag.reporting.publish.Interrupted
        SIGINT or SIGTERM while the report was written (``out`` is as it was).

    Notes
    -----
    Reference ``raw-rag``; design ``cluster`` (the example's 30 conversations, as the Raw-RAG
    paper resamples LoCoMo conversations, C.6); with the example's systems table, claims file,
    decision log and ingestion log.

    References
    ----------
    SPEC §1–§8 as in :func:`report` (SPEC §4.1: the example's 30 conversations take the cluster
    jackknife and the wild cluster bootstrap; SPEC §8: the figures); Raw-RAG paper C.6; Memory
    Tax review.

    Examples
    --------
    Only the figures, with few replicates (the full report takes the same call without
    ``figures``):

    >>> import tempfile
    >>> from pathlib import Path
    >>> tmp = tempfile.TemporaryDirectory()
    >>> folder = demo(figures=Path(tmp.name) / "figures", options={"n_resamples": 100}, progress=False)
    >>> sorted({p.suffix for p in folder.iterdir()})
    ['.pdf', '.png', '.svg']
    >>> {"venn", "forest", "bubble"} <= {p.stem for p in folder.iterdir()}
    True
    >>> tmp.cleanup()
    """
    if not (EXAMPLE / "verdicts").is_dir():
        raise VerdictError(f"the bundled example data are not found at {EXAMPLE}: the demo needs a "
                           "source checkout of memdiag (git clone, then pip install -e .).")
    opts = as_options({"n_resamples": DEMO_RESAMPLES} if options is None else options)
    settings = _settings("raw-rag", _PREPARE_DEFAULTS, opts.replace(design=opts.design or "cluster"))
    sides = dict(systems_table=EXAMPLE / "systems.csv", claims=EXAMPLE / "claims_example.yaml",
                 write_log=EXAMPLE / "write_log.csv", ingestion_log=EXAMPLE / "ingestion_log.csv")
    target = resolve_target(out, force) if figures is None else None
    steps = len(SECTIONS) + (len(WRITE_STEPS) if figures is None else 0)
    with _bar(steps, progress) as bar:
        analysis = _prepare(EXAMPLE / "verdicts", settings, None, read_options=None, bar=bar, out=target,
                            **sides)
        with analysis.figures:
            if target is not None:
                return _publish(analysis, target, bar, force)
            check_outputs(_figure_files(analysis, figures), force=force)
            _save_figures(analysis, figures)
    return Path(figures)
