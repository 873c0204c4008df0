"""Leaving a command-line process without the interpreter's teardown.

Why: after ``polyprobe build ud`` of EWT the interpreter spends 0.15-0.25 s tearing itself
down (module dictionaries cleared, memo caches and arenas freed object by object, Arrow's
pools unmapped) before the shell gets its prompt back, and a build worker's teardown delays
the parent that waits for it. The operating system reclaims all of that at once when the
process ends. Everything a process must still do on the way out is done here first: the
``atexit`` handlers (``weakref.finalize`` callbacks such as the dataset writer's temporary
folder removal, ``logging.shutdown``) and flushing standard output and error. Only the
freeing is skipped.

Not for library code: only the console entry point and the build worker's ``__main__`` call
:func:`exit_process`, after their work has returned.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn


def _other_threads_running() -> bool:
    """Non-daemon threads other than the main one: the normal exit waits for them, so the
    fast one must not cut them off."""
    main = threading.main_thread()
    return any(t is not main and not t.daemon and t.is_alive() for t in threading.enumerate())


def exit_process(code: int) -> NoReturn:
    """End the process with ``code``: ``atexit`` handlers, stdio flushed, then ``os._exit``.
    Falls back to ``sys.exit`` (full teardown) while non-daemon threads are still running."""
    if _other_threads_running():
        sys.exit(code)
    try:
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                if stream is not None:
                    stream.flush()
            except (OSError, ValueError):  # closed or broken pipe: nothing more can be said
                if code == 0:
                    code = 120  # what Python exits with when flushing stdout fails at exit
        os._exit(code)
