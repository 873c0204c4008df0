"""``polyprobe.load``: a release, pinned to its tag, with its card checked and attached.

``datasets.load_dataset`` alone cannot promise that the rows are the requested version: when the
Hub cannot be reached (offline, an outage, a timeout) it silently serves "the latest cached
version" of the dataset, whatever revision was asked for. So ``load``

1. reads the card at the tag ``v<version>`` with ``huggingface_hub.hf_hub_download`` (its
   snapshot folder names the tag's commit) and checks the card's ``release`` (and, when given,
   ``fingerprint``) against the request;
2. loads the data with ``revision=v<version>``;
3. checks the loaded data against that card: the commit ``datasets`` built it from (the last
   component of its cache directory) must be the tag's commit, and the rows per split must be
   the card's. On a mismatch it reloads once with ``download_mode="force_redownload"``; if the
   data still disagrees it raises :class:`ReleaseMismatchError`.

For a local folder the card is the folder's README; ``version`` must equal its release. The
folder is opened through ``cards.boundary`` first, so every bad case raises polyprobe's own
error class (each a subclass of the standard one: a missing path is a ``FileNotFoundError``,
a file a ``NotADirectoryError``, a data file outside the folder, a link or a truncated parquet
a ``ValueError``), in the line ``validate`` lists.

The result is what ``load_dataset`` returns (a ``DatasetDict``, or a ``Dataset`` with
``split=``) with two attributes added: ``.polyprobe`` (the card's ``polyprobe:`` block, a dict)
and ``.release`` (a :class:`LoadedRelease`). Both are plain attributes: ``map``/``filter`` return
new objects without them.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyprobe.cards.boundary import open_folder
from polyprobe.errors import PolyprobeError
from polyprobe.hub.cardinfo import (
    card_fingerprint,
    card_release,
    polyprobe_block,
    read_card_text,
    release_tag,
)

_COMMIT = re.compile(r"^[0-9a-f]{40}$")
# huggingface_hub's repo-id rule: NAME or ORG/NAME of word characters, '-', '.'
_HUB_ID = re.compile(r"^(?:[\w\-.]{1,96}/)?[\w\-.]{1,96}$")


class ReleaseMismatchError(PolyprobeError):
    """The card or the data is not the requested release."""

    exit_code = 1


@dataclass(frozen=True)
class LoadedRelease:
    source: str  # hub repo id or local folder
    config: str | None
    version: str  # the card's release
    revision: str | None  # the tag (None for a local folder)
    commit: str | None  # the tag's commit (None for a local folder)
    fingerprint: str | None
    reloaded: bool = False  # True when a stale cache forced a re-download
    notes: tuple[str, ...] = field(default_factory=tuple)


def _check_card(
    card: dict[str, Any], source: str, version: str | None, fingerprint: str | None
) -> None:
    release = card_release(card)
    if version is not None and release != version.removeprefix("v"):
        raise ReleaseMismatchError(
            f"{source}: requested version {version!r} but its card says release {release!r}"
        )
    found = card_fingerprint(card)
    if fingerprint is not None and found != fingerprint:
        raise ReleaseMismatchError(
            f"{source}: requested fingerprint {fingerprint!r} but its card says {found!r}"
        )


def _config_name(card: dict[str, Any], config: str | None) -> str | None:
    if config is not None:
        return config
    configs = card.get("configs") or []
    default = next((c for c in configs if c.get("default")), configs[0] if configs else None)
    return default.get("config_name") if default else None


def _expected_rows(card: dict[str, Any], config: str | None) -> dict[str, int]:
    name = _config_name(card, config)
    stats = (polyprobe_block(card).get("configs") or {}).get(name or "", {}).get("statistics", {})
    return {s: int(v.get("num_examples", 0)) for s, v in (stats.get("splits") or {}).items()}


def _splits(ds: Any) -> dict[str, Any]:
    """``{split: Dataset}`` for a DatasetDict or a single Dataset (``split=``)."""
    if hasattr(ds, "keys") and callable(ds.keys):
        return dict(ds.items())
    split = getattr(ds, "split", None)
    return {str(split) if split is not None else "?": ds}


def _loaded_commit(ds: Any) -> str | None:
    """The commit ``datasets`` built these Arrow files from: its cache directory is
    ``<cache>/<org>___<name>/<config>/<version>/<commit>/``."""
    for table in _splits(ds).values():
        for cache_file in getattr(table, "cache_files", None) or []:
            name = Path(cache_file["filename"]).parent.name
            if _COMMIT.match(name):
                return name
    return None


def _data_problems(
    ds: Any, card: dict[str, Any], config: str | None, commit: str | None
) -> list[str]:
    problems = []
    loaded = _loaded_commit(ds)
    if commit is not None and loaded is not None and loaded != commit:
        problems.append(f"the data was built from commit {loaded}, the tag points at {commit}")
    expected = _expected_rows(card, config)
    for split, table in _splits(ds).items():
        rows = getattr(table, "num_rows", None)
        if split in expected and rows is not None and rows != expected[split]:
            problems.append(f"split {split!r} has {rows} rows, the card says {expected[split]}")
    return problems


def _attach(ds: Any, card: dict[str, Any], info: LoadedRelease) -> Any:
    ds.polyprobe = polyprobe_block(card)
    ds.release = info
    return ds


class UnknownConfigError(PolyprobeError, ValueError):
    """The folder's card lists no config of that name."""


class LocalLoadError(PolyprobeError, ValueError):
    """``datasets`` could not read a folder that passed the boundary (one line, its first)."""


def _is_local(repo_or_path: str | Path) -> bool:
    """A ``Path``, anything that exists on disk, or a string no Hub id can be (``./x``,
    ``/abs``, ``~/x``, ``a/b/c``): a local folder, whose absence is polyprobe's error rather
    than ``huggingface_hub``'s "Repo id must be in the form ...". A Hub id is ``NAME`` or
    ``ORG/NAME``."""
    if isinstance(repo_or_path, Path):
        return True
    text = str(repo_or_path)
    if os.path.lexists(Path(text).expanduser()):
        return True
    if text.startswith((".", "/", "~", "\\")) or text.count("/") > 1 or "\\" in text:
        return True
    return not _HUB_ID.match(text)


class ReleaseNotFoundError(PolyprobeError, FileNotFoundError):
    """The Hub has no such dataset, tag or card, or it is not cached and the Hub is offline."""


def _hub_card(download: Any, source: str, tag: str) -> Path:
    """The card at ``tag``, or one line saying why not (polyprobe's classes, not the
    client's: no such repo, no such tag, no card, offline without a cached copy)."""
    from huggingface_hub.errors import (
        EntryNotFoundError,
        LocalEntryNotFoundError,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    from polyprobe.hub.reach import hub_step

    where = f"{source}@{tag}"
    with hub_step(f"reading the card of {where}", "nothing was loaded", ReleaseNotFoundError):
        try:
            return Path(download(source, "README.md", repo_type="dataset", revision=tag))
        except LocalEntryNotFoundError:
            raise ReleaseNotFoundError(
                f"{where}: not in the local cache, and the Hub cannot be asked (offline or "
                "unreachable); nothing was loaded"
            ) from None
        except RepositoryNotFoundError:
            raise ReleaseNotFoundError(
                f"{where}: no such dataset on the Hub (or it is private and no token was given)"
            ) from None
        except RevisionNotFoundError:
            raise ReleaseNotFoundError(
                f"{where}: the dataset has no tag or branch {tag!r}"
            ) from None
        except EntryNotFoundError:
            raise ReleaseNotFoundError(f"{where}: the dataset has no README.md card") from None


def _load_local(datasets: Any, local: Path, config: str | None, cache: Any, kwargs: Any) -> Any:
    try:
        return datasets.load_dataset(str(local), config, cache_dir=cache, **kwargs)
    except (PolyprobeError, KeyboardInterrupt):
        raise
    except Exception as exc:  # noqa: BLE001 - datasets raises many classes for a bad folder
        text = str(exc).strip()
        first = text.splitlines()[0] if text else type(exc).__name__
        raise LocalLoadError(f"{local}: datasets cannot load it: {first}") from exc


def load(
    repo_or_path: str | Path,
    config: str | None = None,
    version: str | None = None,
    *,
    fingerprint: str | None = None,
    cache_dir: str | Path | None = None,
    **kwargs: Any,
) -> Any:
    """Load a polyprobe release (see the module doc). ``version`` is ``"1.2.0"`` (or
    ``"v1.2.0"``); for a Hub id it selects the tag ``v1.2.0``, for a folder it must equal the
    card's release. ``None`` loads the Hub's ``main`` pinned to its current commit, or the
    folder as it is. ``kwargs`` go to ``datasets.load_dataset`` (``split=``, ...)."""
    import datasets

    cache = str(cache_dir) if cache_dir is not None else None
    source = str(repo_or_path)
    local = Path(source).expanduser()
    if _is_local(repo_or_path):
        folder = open_folder(local)  # missing, a file, no card, outside, a link, truncated
        card = folder.card
        if config is not None and config not in folder.data_files:
            raise UnknownConfigError(
                f"{source}: no config {config!r}; the card lists "
                f"{', '.join(folder.data_files) or 'none'}"
            )
        _check_card(card, source, version, fingerprint)
        ds = _load_local(datasets, local, config, cache, kwargs)
        problems = _data_problems(ds, card, config, None)
        reloaded = False
        if problems:
            kwargs["download_mode"] = "force_redownload"
            ds = _load_local(datasets, local, config, cache, kwargs)
            reloaded = True
            problems = _data_problems(ds, card, config, None)
        if problems:
            raise ReleaseMismatchError(f"{source}: " + "; ".join(problems))
        info = LoadedRelease(
            source, config, card_release(card), None, None, card_fingerprint(card), reloaded
        )
        return _attach(ds, card, info)

    from huggingface_hub import hf_hub_download

    tag = release_tag(version) if version is not None else "main"
    readme = _hub_card(hf_hub_download, source, tag)
    commit = readme.parent.name if _COMMIT.match(readme.parent.name) else None
    card = read_card_text(readme.read_text(encoding="utf-8"), f"{source}@{tag}: README.md")
    _check_card(card, f"{source}@{tag}", version, fingerprint)
    revision = tag if version is not None else (commit or tag)
    ds = datasets.load_dataset(source, config, revision=revision, cache_dir=cache, **kwargs)
    problems = _data_problems(ds, card, config, commit)
    notes: list[str] = []
    reloaded = False
    if problems:
        notes.append("stale cache: " + "; ".join(problems))
        kwargs["download_mode"] = "force_redownload"
        ds = datasets.load_dataset(source, config, revision=revision, cache_dir=cache, **kwargs)
        reloaded = True
        problems = _data_problems(ds, card, config, commit)
        if problems:
            raise ReleaseMismatchError(
                f"{source}@{tag}: the loaded data is not this release even after a forced "
                "re-download (is the Hub reachable?): " + "; ".join(problems)
            )
    info = LoadedRelease(
        source,
        config,
        card_release(card),
        tag,
        commit,
        card_fingerprint(card),
        reloaded,
        tuple(notes),
    )
    return _attach(ds, card, info)
