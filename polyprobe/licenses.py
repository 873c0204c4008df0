"""Licence resolution for dataset cards: one id when every source agrees, else ``other`` with a
per-source table; merging NonCommercial with non-NonCommercial ShareAlike sources is refused
unless the user consents (ShareAlike forbids adding the NC restriction, NC forbids dropping it)."""

from __future__ import annotations

from polyprobe.errors import LicenseMixError


def hub_license_id(license_id: str) -> str:
    """Card ``license`` field form (Hugging Face uses lower-case ids such as ``cc-by-sa-4.0``)."""
    return license_id.strip().lower() if license_id and license_id != "unknown" else "unknown"


def is_noncommercial(license_id: str) -> bool:
    return "-nc" in license_id.lower()


def is_sharealike(license_id: str) -> bool:
    return "-sa" in license_id.lower()


def resolve_card_license(licenses: dict[str, str], *, allow_mix: bool = False) -> tuple[str, bool]:
    """``licenses`` maps source name -> licence id. Returns (card licence, mixed?)."""
    distinct = sorted(set(licenses.values()))
    nc = sorted(n for n, lic in licenses.items() if is_noncommercial(lic))
    sa_free = sorted(
        n for n, lic in licenses.items() if is_sharealike(lic) and not is_noncommercial(lic)
    )
    if nc and sa_free and not allow_mix:
        raise LicenseMixError(
            "refusing to merge NonCommercial sources ("
            + ", ".join(f"{n}: {licenses[n]}" for n in nc)
            + ") with ShareAlike sources that allow commercial use ("
            + ", ".join(f"{n}: {licenses[n]}" for n in sa_free)
            + ") into one dataset; build them separately or pass --allow-license-mix "
            "(recorded in the card)"
        )
    if len(distinct) == 1:
        return hub_license_id(distinct[0]), False
    return "other", True


#: Licences a source's kind has by documentation where none of its files states one:
#: ``kind -> (licence id, where it is documented)``. UniMorph's data is CC BY-SA 3.0, and the
#: SIGMORPHON 2018 (``german-train-high``) and 2023 (``deu.trn``) inflection files are
#: UniMorph subsets under the same licence; their folders carry no licence file.
DOCUMENTED: dict[str, tuple[str, str]] = {
    "unimorph": (
        "CC-BY-SA-3.0",
        "documented: UniMorph's data licence (CC BY-SA 3.0), which the SIGMORPHON 2018 and "
        "2023 inflection files, UniMorph subsets, keep",
    ),
}

#: Why a source kind's licence stays unknown (the warning's reason); other kinds: no file of
#: theirs states one.
UNSTATED: dict[str, str] = {
    "trec": "TREC's distributors state no licence (research data)",
    "similarity-vecto": "vecto's word-benchmarks repository states none (each set keeps its "
    "authors' terms)",
    "analogies": "the analogy file's folder states none",
    "wuggy-output": "a Wuggy output table states none",
    "wuggy-generated": "pseudowords from a Wuggy lexicon whose licence is not stated",
    "senteval-probing": "a probing file states none",
    "xprobe-probing": "X-Probe's files state none",
    "senteval-sts": "the STS files state none (each STS year keeps its providers' terms)",
}


def documented_license(kind: str) -> tuple[str, str] | None:
    """``(licence id, basis)`` a source of this kind has by documentation, or ``None``."""
    return DOCUMENTED.get(kind)


def unknown_license_warning(name: str, kind: str) -> str:
    """The build's warning for a source of rows whose licence stays unknown: why, what the
    card then says, and how to set it."""
    why = UNSTATED.get(kind, "no LICENSE file or README licence line was found beside it")
    return (
        f"polyprobe: warning: source {name!r} ({kind}) has no known licence: {why}; the "
        f"card says 'license: unknown'. Set it with --license {name}=ID (an SPDX id such as "
        "CC-BY-4.0), or --license '*=ID' for every source without one"
    )
