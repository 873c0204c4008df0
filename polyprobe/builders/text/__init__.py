"""Raw-text sources (Wikipedia dumps, plain text) as sentence records for the text-only
tasks: :mod:`.records` makes a :class:`~polyprobe.loaders.records.Sentence` of a raw
sentence, :mod:`.family` streams them to the shared record build."""
