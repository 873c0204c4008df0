"""The members of one language's suite, family by family, from the resources found (the
package's text says what is decided and why)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from polyprobe.builders.discover.plan import (
    PIVOT,
    Context,
    Plan,
    Planned,
    family_language,
    file_name,
    folder_name,
    tasks_hint,
)
from polyprobe.builders.discover.scale import scale_decision
from polyprobe.builders.discover.scan import Resource
from polyprobe.languages import Language, resolve_language


def plan_language(
    lang: Language, resources: Sequence[Resource], show: Callable[[Path], str]
) -> Plan:
    """The members of ``lang``'s suite from the resources found (the module's text says
    what is decided and why)."""
    mine = [r for r in resources if lang.iso639_3 in r.languages]
    ctx = Context(
        lang, mine, show, Plan(f"{lang.code}-probing", lang, f"{lang.name} ({lang.code})")
    )
    for step in (_ud, _unimorph, _analogies, _similarity, _dictionary, _wiki):
        step(ctx)
    for family in ("trec", "costra"):
        _one_language_family(ctx, family)
    return ctx.plan


def _ud(ctx: Context) -> None:
    code, lang = ctx.lang.iso639_3, ctx.lang
    own = [r for r in ctx.of("treebank") if r.languages == (code,)]
    for r in ctx.of("treebank"):
        if r not in own:
            ctx.unused("ud", r, f"declares several languages ({r.evidence})")
    puds = [r for r in ctx.of("pud") if r.languages == (code,)]
    ctx.treebanks = own or puds
    if not ctx.treebanks:
        ctx.missing(
            "ud",
            f"no UD treebank of {lang.name} (UD_{folder_name(lang)}-*/, "
            f"{lang.code}_*-ud-*.conllu) — would add {tasks_hint('ud')}",
        )
        return
    comments = [ctx.described(r) for r in ctx.treebanks]
    if not own:
        comments.append("its PUD treebank is the language's only treebank, so it is used here")
    ctx.add(Planned("ud", "ud", {"paths": ctx.paths(*ctx.treebanks)}, comments), *ctx.treebanks)
    if own:
        for r in puds:
            why = "a parallel treebank: the parallel suite builds it (suite init --parallel)"
            ctx.unused("ud", r, why)


def _unimorph(ctx: Context) -> None:
    lang = ctx.lang
    lexicons = ctx.of("unimorph", "sigmorphon2018", "sigmorphon2023")
    wuggy = ctx.of("wuggy-output", "wuggy-lexicon")
    name = file_name(lang)
    if not lexicons:
        ctx.missing(
            "unimorph",
            f"no UniMorph lexicon of {lang.name} ({lang.iso639_3}; SIGMORPHON 2018 "
            f"{name}-train-high, -dev, -test; SIGMORPHON 2023 {lang.iso639_3}.trn, .dev, .tst) "
            f"— would add {tasks_hint('unimorph')} (LINSPECTOR's word tasks) and generated "
            "morphological analogies",
        )
        for r in wuggy:
            ctx.unused("unimorph", r, "Wuggy pseudowords need a UniMorph lexicon")
        return
    chosen = lexicons[0]
    for r in lexicons[1:]:
        why = "one lexicon per member (two releases of one lexicon give a paradigm twice)"
        ctx.unused("unimorph", r, why)
    options: dict[str, Any] = {"paths": ctx.paths(chosen)}
    comments = [ctx.described(chosen)]
    frequencies = ctx.paths(*ctx.treebanks)
    if frequencies:
        options["frequencies"] = frequencies
        comments.append("frequencies: the treebank ranks the forms (80% frequent, 20% rare)")
    scale, why = scale_decision(chosen.paths, lang)
    comments.append(why)
    if scale:
        options["scale"] = True
    found = [chosen]
    if wuggy:
        table = wuggy[0]
        key = "wuggy_output" if table.kind == "wuggy-output" else "wuggy_lexicon"
        options[key] = ctx.show(table.paths[0])
        what = "a Wuggy output table" if key == "wuggy_output" else "a Wuggy lexicon (generated)"
        comments.append(f"{key}: {what} for the pseudo task ({table.evidence})")
        found.append(table)
        for r in wuggy[1:]:
            ctx.unused("unimorph", r, "a Wuggy output table is read instead (no generation)")
    else:
        ctx.missing(
            "unimorph",
            f"no Wuggy lexicon (orthographic_{name}.txt) or output table (ort_{name}) — "
            "would add pseudo",
        )
    ctx.add(Planned("unimorph", "unimorph", options, comments), *found)
    generated: dict[str, Any] = {"unimorph": ctx.paths(chosen)}
    if frequencies:
        generated["frequencies"] = frequencies
    comment = f"morphological analogies generated from {ctx.where(chosen)}"
    ctx.plan.members.append(Planned("unimorph_analogies", "analogies", generated, [comment]))


def _analogies(ctx: Context) -> None:
    sets = ctx.of("analogies")
    for i, r in enumerate(sets):
        name = "analogies" if len(sets) == 1 else f"analogies_{i + 1}"
        ctx.add(Planned(name, "analogies", {"paths": ctx.paths(r)}, [ctx.described(r)]), r)
    if not sets:
        ctx.missing(
            "analogies",
            f"no analogy set of {ctx.lang.name} (vecto word-analogy/monolingual/{ctx.lang.code}"
            "/*.csv, FinSemEvl's ANA_*.txt) — would add one config per set and per category",
        )


def _pivot_partner(ctx: Context, concepticon: Resource) -> bool:
    """Does Multi-SimLex pair this language with the pivot (it holds both, and they differ)?"""
    pivot = resolve_language(PIVOT).iso639_3
    return ctx.lang.iso639_3 != pivot and pivot in concepticon.languages


def _similarity(ctx: Context) -> None:
    sets = ctx.of("similarity", "multisimlex")
    if not sets:
        ctx.missing(
            "similarity",
            f"no similarity set of {ctx.lang.name} (vecto monolingual/{ctx.lang.code}/*.csv, "
            f"cross-lingual/{ctx.lang.code}-*/, FinnSim, Multi-SimLex) — would add one config "
            "per set (graded word similarity)",
        )
        return
    options: dict[str, Any] = {"paths": ctx.paths(*sets)}
    comments = [ctx.described(r) for r in sets]
    concepticon = ctx.of("multisimlex")
    if concepticon:
        partner = _pivot_partner(ctx, concepticon[0])
        options["cross_lingual"] = [PIVOT] if partner else []
        comments.append(
            f"cross_lingual: Multi-SimLex {ctx.lang.code}-{PIVOT} (the pivot)"
            if partner
            else f"cross_lingual: none (each Multi-SimLex X-{PIVOT} set is in X's suite)"
        )
    ctx.add(Planned("similarity", "similarity", options, comments), *sets)


def _dictionary(ctx: Context) -> None:
    concepticon = [r for r in ctx.of("multisimlex") if _pivot_partner(ctx, r)]
    if concepticon:
        r = concepticon[0]
        options = {"path": ctx.show(r.paths[0]), "multisimlex": True, "target_lang": PIVOT}
        comment = f"{ctx.where(r)}: Multi-SimLex's concepts as a {ctx.lang.code}-{PIVOT} dictionary"
        ctx.add(Planned("dictionary", "dictionary", options, [comment]), r)
    elif resolve_language(PIVOT).iso639_3 == ctx.lang.iso639_3:
        ctx.missing("dictionary", f"{ctx.lang.name} is the target of every X-{PIVOT} dictionary")
    else:
        ctx.missing(
            "dictionary",
            f"no {ctx.lang.code}-{PIVOT} dictionary (Multi-SimLex's Concepticon file with "
            f"{ctx.lang.name}) — would add a bilingual dictionary (cross-lingual mapping)",
        )


def _wiki(ctx: Context) -> None:
    dumps = ctx.of("wiki")
    if dumps:
        comments = [ctx.described(r) for r in dumps]
        ctx.add(Planned("wiki", "wiki", {"dumps": ctx.paths(*dumps)}, comments), *dumps)
    else:
        ctx.missing(
            "wiki",
            f"no {ctx.lang.code}wiki-*pages-articles*.xml* dump — would add {tasks_hint('wiki')} "
            "on Wikipedia text",
        )


_ONE_LANGUAGE = {
    "trec": "TREC folder (train_5500.label, TREC_10.label)",
    "costra": "COSTRA folder (data.tsv, README)",
}


def _one_language_family(ctx: Context, family: str) -> None:
    """TREC and COSTRA: one resource of one language (the family's own --lang)."""
    found = ctx.of(family)
    if found:
        r = found[0]
        ctx.add(Planned(family, family, {"path": ctx.show(r.paths[0])}, [ctx.described(r)]), r)
        return
    own = family_language(family)
    if own.iso639_3 == ctx.lang.iso639_3:
        ctx.missing(family, f"no {_ONE_LANGUAGE[family]} — would add {tasks_hint(family)}")
    elif family == "trec":  # a translation of its questions makes it another language's
        ctx.missing(
            family,
            f"TREC is {own.name}; a translation of its questions into {ctx.lang.name} would add "
            f"{tasks_hint(family)} (`build trec --translation`: add the member by hand)",
        )
    else:
        ctx.missing(family, f"COSTRA is {own.name} only")
