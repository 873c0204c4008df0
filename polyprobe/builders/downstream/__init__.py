"""Downstream tasks: real classification benchmarks published in the same dataset-folder form
as the probing tasks, so that evaluation (and probing–downstream correlation) reads both the
same way. Their builds are families (``polyprobe.builders.families.trec``)."""
