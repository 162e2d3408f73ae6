"""What a view is: the inputs it computes from, its own parameters, what it shows, and the registry.

A :class:`View` is one figure-bearing diagnostic: how its result is computed from prepared data
and options (the one call the report, ``memdiag plot`` and the Python API share), which plot
function draws it, and its caption. :data:`VIEWS` maps each name to its view; a module of
:mod:`memdiag.views` adds its views with :func:`register` when it is imported.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pandas as pd
from matplotlib.figure import Figure

from memdiag.core.notes import Note
from memdiag.engine.options import Options
from memdiag.errors import VerdictError
from memdiag.panel.prepare import Prepared
from memdiag.plots._names import in_text

#: A figure with its frames bound: called (in a worker process, or here) it draws the figure.
Draw = Callable[[], Figure]
#: The fields of :class:`memdiag.Options` a view's result can depend on (all of them, by default).
OPTION_FIELDS: tuple[str, ...] = ("design", "inference", "n_resamples", "seed", "confidence_level", "correction")
#: How a view uses the reference: it needs one, draws one when given (grey, first), or has none.
REFERENCE_USES: tuple[str, ...] = ("required", "optional", "unused")
T = TypeVar("T")


class Unavailable(VerdictError):
    """The data cannot support a view: ``reason`` says what is missing and how to give it (the
    report omits the view's section with it; ``memdiag plot`` prints it and exits 2)."""

    def __init__(self, view: str, reason: str) -> None:
        super().__init__(f"cannot draw {view}: {reason}.")
        self.view = view
        self.reason = reason


@dataclass(frozen=True)
class Parameter:
    """An option of one view beyond its inputs (``memdiag plot KIND --<name>``).

    Attributes
    ----------
    name
        The keyword of :meth:`View.show` (``--shared-scale`` on the command line).
    default
        Its value when not given: the report's.
    help
        What it does, in one line.
    choices
        The values it takes, when they are fixed.
    """

    name: str
    default: object
    help: str
    choices: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Inputs:
    """What views compute from: the data prepared once, the options, the reference and the side inputs.

    Attributes
    ----------
    prepared
        :func:`memdiag.prepare` output (None for the views of a log or of settings alone).
    options
        :class:`memdiag.Options`: design, inference, B, seed, confidence level, correction.
    reference
        The system every other is compared with (grey in every figure).
    threshold
        The correctness threshold of the views that count correct answers (flows, Venn
        diagrams, augmentation, the cluster warnings of every caption): None (default) reads the
        prepared data's (``md.prepare(threshold=...)``); the report sets its own (its accuracy
        sections compare the scores as given, its flows count correct answers at the threshold).
    labels
        Aliases ``{system: label}`` drawn and written wherever a system is named for people.
    systems_table
        System-level facts keyed by ``system`` (costs, store sizes, variants, labels).
    write_log, ingestion_log
        A memory decision log (:func:`memdiag.read_write_log`) and per-item ingestion durations
        (:func:`memdiag.read_ingestion_log`).
    settings
        Benchmark × model settings prepared once (:func:`memdiag.prepare_settings`), for the
        views across settings.
    all_systems
        The analysis' ordered system list that fixes every system's colour (default: the
        prepared systems).
    memo
        Results computed once and shared by the views that draw them (:meth:`once`).
    """

    prepared: Prepared | None = None
    options: Options = field(default_factory=Options)
    reference: str | None = None
    threshold: float | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    systems_table: pd.DataFrame | None = None
    write_log: pd.DataFrame | None = None
    ingestion_log: pd.DataFrame | None = None
    settings: Mapping[tuple[str, str], Prepared] | None = None
    all_systems: tuple[str, ...] | None = None
    memo: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def systems(self) -> tuple[str, ...]:
        """The systems that fix the colours: :attr:`all_systems`, else the prepared systems."""
        if self.all_systems is not None:
            return tuple(self.all_systems)
        return self.prepared.systems if self.prepared is not None else ()

    @property
    def figure_labels(self) -> dict[str, str] | None:
        """The aliases for ``labels=`` of the plots (None: each figure shortens the names itself)."""
        return dict(self.labels) or None

    def once(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()`` the first time ``key`` is asked for, the same object afterwards."""
        if key not in self.memo:
            self.memo[key] = compute()
        return self.memo[key]

    def verdicts(self, view: str) -> Prepared:
        """The prepared verdicts, or :class:`Unavailable` naming what to give."""
        if self.prepared is None:
            raise Unavailable(view, "it is drawn from per-query verdicts: give them (the verdict files, or "
                                    "md.prepare output)")
        return self.prepared

    def counted(self, view: str) -> Prepared:
        """The prepared verdicts under :attr:`threshold` (when one is set), for the views that
        count correct answers; or :class:`Unavailable` as :meth:`verdicts`."""
        prepared = self.verdicts(view)
        if self.threshold is None:
            return prepared
        return self.once(("counted", self.threshold), lambda: prepared.with_threshold(self.threshold))

    def compared_with(self, view: str) -> str:
        """The reference, checked against the prepared systems, or :class:`Unavailable`."""
        if not self.reference:
            raise Unavailable(view, "it compares every system with a reference: name it (reference=, "
                                    "--reference NAME)")
        systems = self.verdicts(view).systems
        if self.reference not in systems:
            raise Unavailable(view, f"the reference '{self.reference}' is not in the data (systems: "
                                    f"{', '.join(systems)})")
        return self.reference


@dataclass(frozen=True)
class Shown:
    """What a view shows: its result frames, the figure and its caption.

    Attributes
    ----------
    view
        The view's name.
    tables
        The result frames the figure draws, under the names the report gives its tables.
    draw
        The figure with its frames bound (call it, or :meth:`figure`); None when it is left out
        (``left_out`` says why) while its tables stand.
    text
        The caption with the systems' full names (as analysis.json records it): what the figure
        shows, how its numbers were made (level, correction, design) and the warnings attached to
        its result.
    warnings
        The warnings attached to the result drawn (also in the caption and the figure's notes).
    left_out
        Why the figure is not drawn (e.g. more systems than a matrix holds), or None.
    labels
        The aliases the figure draws and :attr:`caption` writes.
    """

    view: str
    tables: dict[str, pd.DataFrame]
    draw: Draw | None
    text: str
    warnings: tuple[Note, ...] = ()
    left_out: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict)

    @property
    def caption(self) -> str:
        """The caption for people: :attr:`text` with every system under its label."""
        return in_text(self.text, self.labels)

    def figure(self) -> Figure:
        """Draw the figure (a VerdictError saying why when it is left out)."""
        if self.draw is None:
            raise VerdictError(f"{self.view}: {self.left_out}")
        return self.draw()


@dataclass(frozen=True)
class View:
    """One figure-bearing diagnostic: how its result is computed, drawn and captioned.

    Attributes
    ----------
    name
        The registry key (``memdiag plot NAME``).
    summary
        One line: what the figure shows (``memdiag plot --help``).
    build
        ``build(inputs, **parameters) -> Shown``: computes the result with the report's call and
        defaults, binds the plot function and writes the caption.
    parameters
        The view's own options, with the report's defaults.
    needs
        The inputs it reads, of ``verdicts``, ``systems_table``, ``write_log``, ``ingestion_log``,
        ``settings`` (the command line offers the matching options).
    reference
        ``required`` (every system is compared with it), ``optional`` (drawn first or grey when
        given) or ``unused``.
    options
        The fields of :class:`memdiag.Options` its result depends on (the command line offers
        exactly these: an option offered must have an effect).
    """

    name: str
    summary: str
    build: Callable[..., Shown]
    parameters: tuple[Parameter, ...] = ()
    needs: tuple[str, ...] = ("verdicts",)
    reference: str = "optional"
    options: tuple[str, ...] = OPTION_FIELDS

    def __post_init__(self) -> None:
        if self.reference not in REFERENCE_USES:
            raise ValueError(f"view {self.name!r}: reference is one of {', '.join(REFERENCE_USES)}, not "
                             f"{self.reference!r}.")
        unknown = sorted(set(self.options) - set(OPTION_FIELDS))
        if unknown:
            raise ValueError(f"view {self.name!r}: no option field {', '.join(unknown)}.")

    def show(self, inputs: Inputs, **parameters: Any) -> Shown:
        """The view's tables, figure and caption from ``inputs``; a parameter not given takes its default.

        Raises
        ------
        TypeError
            A parameter the view does not have.
        ValueError
            A value outside a parameter's choices.
        Unavailable
            The data cannot support the view (the reason says what to give).
        """
        known = {p.name: p for p in self.parameters}
        unknown = sorted(set(parameters) - set(known))
        if unknown:
            have = ", ".join(known) or "none"
            raise TypeError(f"view {self.name!r} has no parameter {', '.join(map(repr, unknown))} (its parameters: "
                            f"{have}).")
        values = {name: parameters.get(name, p.default) for name, p in known.items()}
        for name, value in values.items():
            choices = known[name].choices
            if choices is not None and value not in choices:
                raise ValueError(f"view {self.name!r}: {name} must be one of {', '.join(choices)}, not {value!r}.")
        return self.build(inputs, **values)


#: Every view, by name, in the order they were registered.
VIEWS: dict[str, View] = {}


def register(view: View) -> View:
    """Add ``view`` to :data:`VIEWS` (a name is registered once)."""
    if view.name in VIEWS:
        raise ValueError(f"a view named {view.name!r} is registered twice.")
    VIEWS[view.name] = view
    return view
