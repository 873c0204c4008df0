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
