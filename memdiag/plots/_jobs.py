"""Figures drawn and rendered in worker processes while the caller goes on with its analysis.

Drawing a publication figure (laying out every label) and rendering it as PDF, SVG and PNG
(font subsetting, a 300-dpi raster) is most of the time a report takes, and figures are
independent of each other and of the tables. :class:`FigureJobs` takes a figure as a *drawing
function* — a plot function with its result frame bound, e.g. ``partial(plots.venn, flows)`` —
and, where the platform forks, runs it in a child process forked at that moment: the child
inherits the frame (nothing is pickled), draws the figure, renders its three files into memory
and sends back their bytes and the figure's size. Where forking is not available, or with
``processes=0``, the same function runs in the caller when its result is asked for. The bytes
are those of :func:`memdiag.plots.style.save` either way.

A worker ignores SIGINT and takes the default action on SIGTERM: an interrupt is the caller's
to handle, and a worker never runs the caller's clean-up handlers; it writes nothing to disk.
"""

from __future__ import annotations

import multiprocessing
import signal
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection

from matplotlib.figure import Figure

from memdiag.plots.style import FORMATS, rendered

Draw = Callable[[], Figure]


@dataclass(frozen=True)
class Rendered:
    """A figure's files as bytes (``pdf``, ``svg``, ``png``), its size in inches, and the warnings
    drawing it raised (kept for the caller to record, never printed by a worker)."""

    files: dict[str, bytes]
    size: tuple[float, float]
    warnings: tuple[str, ...] = ()


def render(draw: Draw) -> Rendered:
    """Draw the figure and render it (in this process)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig = draw()
        files = rendered(fig, FORMATS)
    width, height = fig.get_size_inches()
    return Rendered(files, (float(width), float(height)), tuple(dict.fromkeys(str(w.message) for w in caught)))


def _child(draw: Draw, connection: Connection) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        connection.send(("ok", render(draw)))
    except BaseException as error:  # the caller re-raises it; a worker never prints a traceback
        connection.send(("error", f"{type(error).__name__}: {error}"))
    finally:
        connection.close()


class FigureError(RuntimeError):
    """A figure could not be drawn or rendered in its worker process."""


class FigureJobs:
    """Figures being drawn and rendered; :meth:`result` waits for one.

    Parameters
    ----------
    processes
        Run each figure in a forked worker process (the default where the platform forks), or
        ``0`` to draw every figure in this process when its result is asked for.

    Use it as a context manager: on leaving, workers still running are stopped.
    """

    def __init__(self, processes: int | None = None) -> None:
        forks = "fork" in multiprocessing.get_all_start_methods()
        self._parallel = forks and processes != 0
        self._running: dict[str, tuple[multiprocessing.Process, Connection]] = {}
        self._waiting: dict[str, Draw] = {}
        self._done: dict[str, Rendered] = {}

    def submit(self, name: str, draw: Draw) -> None:
        """Start drawing figure ``name`` (a name is submitted once)."""
        if name in self._running or name in self._waiting or name in self._done:
            raise ValueError(f"figure {name!r} is submitted twice.")
        if not self._parallel:
            self._waiting[name] = draw
            return
        receive, send = multiprocessing.Pipe(duplex=False)
        process = multiprocessing.get_context("fork").Process(target=_child, args=(draw, send), daemon=True)
        process.start()
        send.close()
        self._running[name] = (process, receive)

    def result(self, name: str) -> Rendered:
        """The figure's bytes and size, once it is drawn (re-raises its error as :class:`FigureError`)."""
        if name in self._done:
            return self._done[name]
        if name in self._waiting:
            self._done[name] = render(self._waiting.pop(name))
            return self._done[name]
        process, receive = self._running.pop(name)
        try:
            status, value = receive.recv()
        except EOFError:  # the worker died without a word (killed)
            process.join()
            raise FigureError(f"figure {name!r}: its worker process ended with code {process.exitcode}.") from None
        finally:
            receive.close()
        process.join()
        if status != "ok":
            raise FigureError(f"figure {name!r}: {value}")
        self._done[name] = value
        return value

    def stop(self) -> None:
        """Stop every worker still running (their figures are dropped)."""
        for process, receive in self._running.values():
            process.terminate()
            process.join()
            receive.close()
        self._running.clear()
        self._waiting.clear()

    def __enter__(self) -> FigureJobs:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
