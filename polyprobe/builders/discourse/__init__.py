"""Discourse tasks over documents (DiscoEval's suite): sentence position, binary sentence
ordering, discourse coherence and sentence section prediction read any
:class:`~polyprobe.loaders.records.Document` stream (UD ``# newdoc`` documents, Wikipedia
articles, plain-text files); discourse relations read RST trees."""
