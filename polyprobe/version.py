"""polyprobe's own version, on the ground floor: cards, fingerprints and results record it, and
importing it must not import the package's entry points."""

__version__ = "0.1.0"
