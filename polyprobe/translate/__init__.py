"""``polyprobe translate``: a dataset's text columns (or a text file) through a pluggable
translator, batched, cached and resumable, into a translation file that ``build trec
--translation`` (and any source keyed by id or source text) reads."""
