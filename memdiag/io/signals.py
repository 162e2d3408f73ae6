"""Signals while memdiag writes: SIGINT, SIGTERM and SIGHUP all stop a command the same way.

:func:`interruptible` turns each of them into :class:`Interrupted` (a KeyboardInterrupt carrying
the signal number), so every ``finally`` and ``except BaseException`` on the way out runs: a
temporary file (:func:`memdiag.io.outputs.write_file`) or a report's staging folder is removed, and
the command line exits 128 + the signal number with one line. :meth:`_Signals.held` holds them
back for a block that must not be cut in two (the renames that swap a report folder in).
Installed only in the main thread (the one Python delivers signals to); the previous handlers
are restored afterwards.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

#: The signals that stop a command cleanly (SIGHUP: the terminal closed).
SIGNALS: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Interrupted(KeyboardInterrupt):
    """SIGINT, SIGTERM or SIGHUP arrived while memdiag was working (``signum`` says which)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class _Signals:
    """Turns the :data:`SIGNALS` into :class:`Interrupted`, or holds them back (:meth:`held`)."""

    def __init__(self) -> None:
        self.holding = False
        self.pending: int | None = None

    def __call__(self, signum: int, frame: object) -> None:
        if self.holding:
            self.pending = self.pending or signum
            return
        raise Interrupted(signum)

    @contextmanager
    def held(self) -> Iterator[None]:
        """A block no signal interrupts; a signal that arrived meanwhile is raised after it."""
        self.holding = True
        try:
            yield
        finally:
            self.holding = False
        if self.pending is not None:
            raise Interrupted(self.pending)


@contextmanager
def interruptible() -> Iterator[_Signals]:
    """Install :class:`_Signals` for the :data:`SIGNALS` for the block, then restore the handlers.

    >>> with interruptible() as signals:
    ...     with signals.held():
    ...         pass
    """
    handler = _Signals()
    if threading.current_thread() is not threading.main_thread():
        yield handler
        return
    previous = {s: signal.getsignal(s) for s in SIGNALS}
    for s in SIGNALS:
        signal.signal(s, handler)
    try:
        yield handler
    finally:
        for s, old in previous.items():
            signal.signal(s, old if old is not None else signal.SIG_DFL)
