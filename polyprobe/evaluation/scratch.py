"""Where the libraries evaluation loads may write scratch files: a folder of ours in the temp
dir, removed when the evaluation ends.

Why: importing sentence-transformers imports ``torch._dynamo``, which creates torch's compile
cache, ``$TMPDIR/torchinductor_<user>/``, at import time, though evaluation compiles nothing:
every ``polyprobe evaluate`` left that folder behind. Within :func:`torch_scratch`,
``TORCHINDUCTOR_CACHE_DIR`` names a folder ``polyprobe-torch-<pid>-<host>-<random>`` in the temp
dir instead, removed on the way out (Ctrl-C and SIGTERM included); one a killed process left
(SIGKILL) is swept by the next evaluation (``cards.folder.sweep_orphans``). A
``TORCHINDUCTOR_CACHE_DIR`` the user set is theirs: it is used as it is and never removed.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from polyprobe.cards.folder import make_owned_dir, sweep_orphans

TORCH_CACHE_VARIABLE = "TORCHINDUCTOR_CACHE_DIR"
PREFIX = "polyprobe-torch-"


@contextlib.contextmanager
def torch_scratch() -> Iterator[Path | None]:
    """Torch's compile cache in a folder of this process for the block (None: the user's own
    ``TORCHINDUCTOR_CACHE_DIR``, or an enclosing block's, is kept)."""
    if os.environ.get(TORCH_CACHE_VARIABLE):
        yield None
        return
    parent = Path(tempfile.gettempdir())
    sweep_orphans(parent, PREFIX)
    path = make_owned_dir(parent, PREFIX, 0o700)
    os.environ[TORCH_CACHE_VARIABLE] = str(path)
    try:
        yield path
    finally:
        # torch writes the resolved folder back into the variable: drop it only if it is ours
        if os.environ.get(TORCH_CACHE_VARIABLE) in (str(path), str(path.resolve())):
            del os.environ[TORCH_CACHE_VARIABLE]
        shutil.rmtree(path, ignore_errors=True)
