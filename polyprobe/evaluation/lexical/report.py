"""Tables of lexical results for ``report.md`` (analogies, similarity, similarity in
context, dictionaries, COSTRA, with COSTRA's PCA plot) and a one-line-per-result summary for
the command line."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from polyprobe.errors import InputError
from polyprobe.evaluation.correlate import dataset_display
from polyprobe.evaluation.lexical.plots import costra_pca_plot, pca_plot_name


def _f(x: Any, digits: int = 3) -> str:
    return "—" if x is None else f"{float(x):.{digits}f}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    esc = [[str(c).replace("|", "\\|") for c in r] for r in [header, *rows]]
    out = ["| " + " | ".join(esc[0]) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in esc[1:]]
    return out


def is_lexical_result(obj: Any) -> bool:
    return isinstance(obj, dict) and "lexical_schema_version" in obj and "scores" in obj


def load_lexical_results(paths: Iterable[str | Path]) -> list[dict[str, Any]]:
    """Every lexical result JSON under ``paths`` (folders searched recursively)."""
    out = []
    for raw in paths:
        p = Path(raw)
        files = sorted(p.rglob("*.json")) if p.is_dir() else [p] if p.is_file() else []
        for f in files:
            try:
                obj = json.loads(f.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise InputError(f, None, f"not JSON: {exc}", "bad-json") from None
            if is_lexical_result(obj):
                out.append(obj)
    return out


def _enc(r: dict[str, Any]) -> str:
    """A pretrained model by its own name (``encoder.model_name``), else the encoder id."""
    enc = r["encoder"]
    name = enc.get("model_name")
    if name:
        return f"{str(enc['id']).split(':', 1)[0]}:{name}"
    return str(enc["id"])


def _where(r: dict[str, Any]) -> list[str]:
    """The dataset (by name, never a path) and the config's family."""
    return [dataset_display(r), str(r.get("family") or "–")]


def lexical_markdown(results: list[dict[str, Any]]) -> str:
    """The lexical sections of ``report.md``."""
    by_level: dict[str, list[dict[str, Any]]] = {}
    for r in results:
        by_level.setdefault(r["level"], []).append(r)
    lines: list[str] = []
    if "word-analogy" in by_level:
        lines += [
            "## Word analogies",
            "",
            "Accuracy over all questions (out-of-vocabulary ones count as wrong), by 3CosAdd "
            "and 3CosMul over the vocabulary in `space` (question words excluded); "
            "`covered`: accuracy over the questions whose four words are in it. A cross-lingual "
            "set (`L1 -> L2`) searches word4 among its L2 words only.",
            "",
        ]
        rows = []
        for r in by_level["word-analogy"]:
            s = r["scores"]
            cross = s.get("cross_lingual")
            config = r["config"] + (f" ({cross['direction']})" if cross else "")
            for part in ("overall", "semantic", "morphological"):
                b = s[part]
                if not b["questions"]:
                    continue
                rows.append(
                    [
                        *_where(r),
                        config,
                        part,
                        _enc(r),
                        str(b["questions"]),
                        str(b["oov_questions"]),
                        _f(b["3cosadd"]["accuracy"]),
                        _f(b["3cosadd"]["accuracy_covered"]),
                        _f(b["3cosmul"]["accuracy"]),
                        _f(b["3cosmul"]["accuracy_covered"]),
                        str(r["space"].get("size", "")),
                    ]
                )
        lines += _table(
            [
                "dataset",
                "family",
                "config",
                "part",
                "encoder",
                "questions",
                "OOV",
                "3CosAdd",
                "covered",
                "3CosMul",
                "covered",
                "N",
            ],
            rows,
        )
        lines.append("")
    if "word-pair" in by_level:
        lines += [
            "## Word similarity",
            "",
            "Spearman's rho of cosine similarity with the gold scores over the pairs whose two "
            "words are in the vocabulary; out-of-vocabulary pairs counted.",
            "",
        ]
        rows = [
            [
                *_where(r),
                r["config"],
                _enc(r),
                str(r["scores"]["pairs"]),
                str(r["scores"]["oov_pairs"]),
                _f(r["scores"]["spearman"]),
                _f(r["scores"]["pearson"]),
            ]
            for r in by_level["word-pair"]
        ]
        header = ["dataset", "family", "config", "encoder", "pairs", "OOV", "Spearman", "Pearson"]
        lines += _table(header, rows)
        lines.append("")
    if "word-translation" in by_level:
        lines += [
            "## Cross-lingual mapping",
            "",
            "Orthogonal Procrustes fitted on the dictionary's train pairs; precision@k on its "
            "test pairs by nearest neighbour and by CSLS (k = 10), both directions.",
            "",
        ]
        rows = []
        for r in by_level["word-translation"]:
            s = r["scores"]
            for direction in ("source_to_target", "target_to_source"):
                d = s.get(direction)
                if not d:
                    continue
                rows.append(
                    [
                        *_where(r),
                        r["config"],
                        direction.replace("_", " "),
                        _enc(r),
                        str(d["queries"]),
                        *(_f(d["nn"][f"p@{k}"]) for k in (1, 5, 10)),
                        *(_f(d["csls"][f"p@{k}"]) for k in (1, 5, 10)),
                    ]
                )
        lines += _table(
            [
                "dataset",
                "family",
                "config",
                "direction",
                "encoder",
                "queries",
                "NN P@1",
                "NN P@5",
                "NN P@10",
                "CSLS P@1",
                "CSLS P@5",
                "CSLS P@10",
            ],
            rows,
        )
        lines.append("")
    if "word-pair-in-context" in by_level:
        lines += [
            "## Word similarity in context",
            "",
            "SemEval-2020 Task 3 (CoSimLex): the cosine of the two words' in-context vectors. "
            "Subtask 1: uncentred Pearson of the predicted change (context2 − context1) with "
            "the gold change; subtask 2: Spearman and Pearson of the per-context cosines with "
            "the scores, and their harmonic mean.",
            "",
        ]
        rows = []
        for r in by_level["word-pair-in-context"]:
            s = r["scores"]
            one, two = s["subtask1_change"], s["subtask2_similarity"]
            rows.append(
                [
                    *_where(r),
                    r["config"],
                    _enc(r),
                    str(s["pairs"]),
                    _f(one["uncentred_pearson"]),
                    _f(one["pearson"]),
                    _f(two["spearman"]),
                    _f(two["pearson"]),
                    _f(two["harmonic_mean"]),
                ]
            )
        header = [
            "dataset",
            "family",
            "config",
            "encoder",
            "pairs",
            "change: uncentred r",
            "change: r",
            "Spearman",
            "Pearson",
            "harmonic mean",
        ]
        lines += _table(header, rows)
        lines.append("")
    if "sentence-transformation" in by_level:
        lines += [
            "## COSTRA: transformations",
            "",
            "Per transformation type, the mean cosine of a sentence to its seed and the mean "
            "string similarity (Levenshtein ratio); `r`: Pearson across the type means.",
            "",
        ]
        for r in by_level["sentence-transformation"]:
            s = r["scores"]
            dataset, family = _where(r)
            lines.append(
                f"{dataset} ({family}) `{r['config']}`, {_enc(r)}: "
                f"r = {_f(s['pearson_cosine_vs_string_similarity'])}"
            )
            lines.append("")
            rows = [
                [t, str(v["sentences"]), _f(v["mean_cosine"]), _f(v["mean_string_similarity"])]
                for t, v in s["types"].items()
            ]
            lines += _table(["type", "sentences", "mean cosine", "mean string similarity"], rows)
            lines.append("")
            if "pca" in s:
                lines += [
                    f"![COSTRA PCA]({pca_plot_name(r)}): each transformed sentence minus its "
                    "seed, on the first two principal components, coloured by type.",
                    "",
                ]
    if "sentence-comparison" in by_level:
        lines += [
            "## COSTRA: orderings",
            "",
            "Accuracy of cos(s1, s2) > cos(s3, s4) over the orderings COSTRA asserts, grouped "
            "as the `costra` package reports them (`costra`: their mean).",
            "",
        ]
        groups = [
            "basic",
            "modality",
            "time",
            "style",
            "generalization",
            "opposite_meaning",
            "costra",
        ]
        rows = [
            [
                *_where(r),
                r["config"],
                _enc(r),
                *(_f(r["scores"]["package_groups"][g]) for g in groups),
            ]
            for r in by_level["sentence-comparison"]
        ]
        lines += _table(["dataset", "family", "config", "encoder", *groups], rows)
        lines.append("")
        rows = []
        for r in by_level["sentence-comparison"]:
            for label, v in r["scores"]["labels"].items():
                rows.append([label, _enc(r), str(v["comparisons"]), _f(v["accuracy"])])
        lines += ["Per ordering type (`basic:X`: a paraphrase closer to the seed than X):", ""]
        lines += _table(["ordering", "encoder", "comparisons", "accuracy"], rows)
        lines.append("")
    return "\n".join(lines)


def write_lexical_report(
    results: list[dict[str, Any]], out_dir: str | Path, *, append: bool = False
) -> Path:
    """``report.md`` with the lexical tables (appended to an existing probing report when
    ``append``), ``lexical-report.json`` with the results behind them and, per COSTRA
    transformations result, its PCA plot (``costra-pca-<dataset>-<config>-<encoder>.png``)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    md = out / "report.md"
    body = lexical_markdown(results)
    if append and md.is_file():
        md.write_text(md.read_text(encoding="utf-8").rstrip("\n") + "\n\n" + body, "utf-8")
    else:
        md.write_text("# polyprobe evaluation report\n\n" + body, encoding="utf-8")
    for r in results:
        if r["level"] == "sentence-transformation" and "pca" in r["scores"]:
            title = f"{dataset_display(r)} {r['config']}, {_enc(r)}: sentence − seed, 2 PCs"
            costra_pca_plot(r, out / pca_plot_name(r), title)
    (out / "lexical-report.json").write_text(
        json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return md


def _cache(r: dict[str, Any]) -> str:
    """The embedding cache's hits/misses of a computed result (a reused one encoded nothing;
    files from before results recorded it say nothing)."""
    cache = r.get("cache")
    if r.get("resumed") or not isinstance(cache, dict) or "read_from" in cache:
        return ""
    if cache.get("cached") is False:
        return "\tnot cached"
    return f"\tcache {cache.get('hits', 0)}/{cache.get('misses', 0)} hit/miss"


def lexical_summary(results: list[dict[str, Any]]) -> str:
    """One line per result: config, encoder, its headline number and, when it was computed
    now, the embedding cache's hits and misses."""
    lines = []
    for r in results:
        s = r["scores"]
        level = r["level"]
        if level == "word-pair":
            head = f"spearman {_f(s['spearman'])} ({s['oov_pairs']}/{s['pairs']} OOV)"
        elif level == "word-analogy":
            o = s["overall"]
            head = (
                f"3CosAdd {_f(o['3cosadd']['accuracy'])} 3CosMul {_f(o['3cosmul']['accuracy'])} "
                f"({o['oov_questions']}/{o['questions']} OOV)"
            )
        elif level == "word-translation":
            d = s.get("source_to_target") or {}
            head = f"P@1 NN {_f((d.get('nn') or {}).get('p@1'))} CSLS {_f((d.get('csls') or {}).get('p@1'))}"
        elif level == "word-pair-in-context":
            one, two = s["subtask1_change"], s["subtask2_similarity"]
            head = (
                f"change uncentred r {_f(one['uncentred_pearson'])} "
                f"spearman {_f(two['spearman'])} ({s['pairs']} pairs)"
            )
        elif level == "sentence-transformation":
            head = f"r(cos, string sim) {_f(s['pearson_cosine_vs_string_similarity'])}"
        else:
            head = f"costra {_f(s['package_groups']['costra'])}"
        lines.append(f"{_where(r)[0]}\t{r['config']}\t{_enc(r)}\t{head}{_cache(r)}")
    return "\n".join(lines)
