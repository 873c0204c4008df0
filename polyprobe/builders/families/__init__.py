"""The source families: one module each, each holding one :class:`~polyprobe.builders.
family.Family` instance (a module may hold several, e.g. classification, pairs and
regression). The command line and ``polyprobe.build_<family>`` find them here."""
