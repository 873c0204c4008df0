"""The machinery under the build: processes (``parallel``), how many and which tasks each runs
(``shards``, ``costs``), and candidate storage on disk (``spool``). It knows no task: it runs
opaque shards and jobs, and stores rows and columns."""
