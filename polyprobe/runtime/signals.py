"""Termination signals: SIGTERM is handled like Ctrl-C, and pool workers never outlive the
command.

Why: ``timeout``, ``kill``, ``scancel`` and ``docker stop`` send SIGTERM, whose default action
ends the process at once, with no ``finally`` and no ``__exit__``: the build's hidden staging
folder beside ``--out``, its spool folder in the temp dir and its pool workers stayed behind.
:func:`terminate_like_interrupt` makes SIGTERM raise :class:`Terminated` in the command's
main thread instead. It is a ``KeyboardInterrupt``, so every path that already cleans up after
Ctrl-C (the folder writer's abort, the spool folder's removal, the pool's kill of its workers)
runs unchanged; the command line reports it and exits ``128 + signal`` (143).

Pool workers are set up by :func:`worker_setup` (the pool's initializer): SIGTERM ends them
at once (their output lies in folders the command removes), Ctrl-C is left to the command (it
kills them), and a thread ends them when the command itself is gone: a worker forked by a
``ProcessPoolExecutor`` otherwise blocks on its call queue forever after a SIGKILL of its
parent, since it holds that pipe's write end itself. SIGKILL of the command cannot be
handled; the next build sweeps what it left (``polyprobe.cards.folder.sweep_orphans``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from types import FrameType

# How often a pool worker checks that the command that started it still runs (seconds).
PARENT_CHECK_INTERVAL = 0.1


class Terminated(KeyboardInterrupt):
    """A termination signal (SIGTERM) received by the command: handled as Ctrl-C is.
    ``exit_code`` is the shell's convention for a death by that signal."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        self.signame = signal.Signals(signum).name
        self.exit_code = 128 + signum
        super().__init__(self.signame)

    def __reduce__(self) -> tuple[type[Terminated], tuple[int]]:  # crosses processes whole
        return Terminated, (self.signum,)


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    # A second SIGTERM (``docker stop``, an impatient ``kill``) must not cut the cleanup the
    # first one started: from now on it is ignored (``docker stop`` still ends with SIGKILL).
    signal.signal(signum, signal.SIG_IGN)
    raise Terminated(signum)


@contextlib.contextmanager
def terminate_like_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` in the main thread; the previous
    handler is restored on leaving (so a test that calls the command in-process leaves its
    runner's handler as it was) — unless a SIGTERM was received and the previous handler was
    the default action: the command's process is then ending, and a second SIGTERM arriving
    between leaving the block and the exit must not kill it halfway through its last line (it
    stays ignored). Outside the main thread (where Python cannot set handlers) it does
    nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        # _raise_terminated set SIG_IGN when a SIGTERM came (whether or not the command let
        # the Terminated out): with the default action before, this process is ending because
        # of it, so it stays ignored; a caller's own handler is put back.
        received = signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
        if not received or previous not in (signal.SIG_DFL, None):
            signal.signal(signal.SIGTERM, previous)


def worker_setup(parent: int) -> None:
    """Initializer of a pool worker started by process ``parent`` (its OS parent under the
    ``fork`` and ``spawn`` start methods the build uses): SIGTERM ends it at once, SIGINT is
    the parent's to handle (it kills its workers), and it ends itself as soon as ``parent`` is
    gone (checked every :data:`PARENT_CHECK_INTERVAL` seconds)."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(
        target=_exit_with_parent, args=(parent,), name="polyprobe-parent-watch", daemon=True
    ).start()


def _exit_with_parent(parent: int) -> None:
    """A worker whose parent died is re-parented (to init or a subreaper): ``getppid``
    changes. Nothing it still writes can be used, so it ends without cleaning up; the folders
    it wrote into carry the dead parent's pid and are swept by the next build."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_INTERVAL)
    os._exit(1)
