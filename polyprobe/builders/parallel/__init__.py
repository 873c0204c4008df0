"""What ``build parallel`` (:mod:`polyprobe.builders.families.parallel`) builds beside its
per-language streams: its inputs and their alignment (:mod:`.inputs`, :mod:`.texts`), what the
inputs say about each item (:mod:`.facts`), the streams (:mod:`.streams`), the published
labels and their agreement with the pivot (:mod:`.agreement`), the wide config
(:mod:`.wide`)."""
