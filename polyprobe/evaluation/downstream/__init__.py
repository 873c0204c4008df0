"""Downstream models over frozen encoder vectors (LINSPECTOR's downstream side): a BiLSTM
sequence tagger (POS, NER) and a biaffine dependency parser, trained and scored on the
published rows of a ``pos``/``ner``/``parse`` config (``polyprobe evaluate --probe tagger``,
``--probe parser``)."""

from polyprobe.evaluation.downstream.run import (
    DOWNSTREAM_PROBES,
    evaluate_downstream,
    is_downstream_result,
)

__all__ = ["DOWNSTREAM_PROBES", "evaluate_downstream", "is_downstream_result"]
