"""The works the tasks follow, as the cards cite them (one place, so two tasks of one recipe
cite it in the same words and the card lists it once)."""

from __future__ import annotations

CONNEAU_2018 = (
    "Conneau, Alexis, Germán Kruszewski, Guillaume Lample, Loïc Barrault and Marco Baroni "
    "(2018). What you can cram into a single $&!#* vector: Probing sentence embeddings for "
    "linguistic properties. In Proceedings of the 56th Annual Meeting of the Association for "
    "Computational Linguistics (ACL 2018), Volume 1: Long Papers, pages 2126-2136, "
    "Melbourne, Australia."
)

WEHNER_2019 = (
    "Wehner, Daniel (2019). Interpretability of Sentence Embeddings in Low-Resource "
    "Languages. Master's thesis, Technische Universität Darmstadt. Published with: Eger, "
    "Steffen, Johannes Daxenberger and Iryna Gurevych (2020). How to Probe Sentence "
    "Embeddings in Low-Resource Languages: On Structural Design Choices for Probing Task "
    "Evaluation. In Proceedings of the 24th Conference on Computational Natural Language "
    "Learning (CoNLL 2020). arXiv:2006.09109."
)

UD_CITATION = (
    "@article{de-marneffe-etal-2021-universal,\n"
    "  title = {Universal {D}ependencies},\n"
    "  author = {de Marneffe, Marie-Catherine and Manning, Christopher D. and Nivre, Joakim "
    "and Zeman, Daniel},\n"
    "  journal = {Computational Linguistics},\n"
    "  volume = {47},\n"
    "  number = {2},\n"
    "  pages = {255--308},\n"
    "  year = {2021}\n"
    "}"
)

SAHIN_2020 = """@article{sahin-etal-2020-linspector,
  title = {{LINSPECTOR}: Multilingual Probing Tasks for Word Representations},
  author = {{\\c{S}}ahin, G{\\"o}zde G{\\"u}l and Vania, Clara and Kuznetsov, Ilia and Gurevych, Iryna},
  journal = {Computational Linguistics},
  volume = {46},
  number = {2},
  pages = {335--385},
  year = {2020}
}"""

LI_ROTH_2002 = """@inproceedings{li-roth-2002-learning,
  title = {Learning Question Classifiers},
  author = {Li, Xin and Roth, Dan},
  booktitle = {{COLING} 2002: The 19th International Conference on Computational Linguistics},
  year = {2002},
  url = {https://aclanthology.org/C02-1150}
}"""

CHEN_2019 = (
    "Chen, Mingda, Zewei Chu and Kevin Gimpel (2019). Evaluation Benchmarks and Learning "
    "Criteria for Discourse-Aware Sentence Representations. In Proceedings of the 2019 "
    "Conference on Empirical Methods in Natural Language Processing and the 9th International "
    "Joint Conference on Natural Language Processing (EMNLP-IJCNLP 2019), pages 649-662, "
    "Hong Kong, China."
)

ARAUJO_2022 = (
    "Araujo, Vladimir, Andrés Carvallo, Souvik Kundu, José Cañete, Marcelo Mendoza, Robert E. "
    "Mercer, Felipe Bravo-Marquez, Marie-Francine Moens and Alvaro Soto (2022). Evaluation "
    "Benchmarks for Spanish Sentence Representations. In Proceedings of the Thirteenth "
    "Language Resources and Evaluation Conference (LREC 2022), pages 6024-6034, Marseille, "
    "France."
)
