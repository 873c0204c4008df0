"""The machinery under the build: processes (``parallel``), how many and which tasks each runs
(``shards``, ``costs``), candidate storage on disk (``spool``), garbage collection during a
build (``collection``), and termination signals (``signals``: SIGTERM handled as Ctrl-C,
workers that end with their parent). It knows no task: it runs opaque shards and jobs, and
stores rows and columns."""
