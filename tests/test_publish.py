"""``polyprobe publish`` and ``polyprobe.load`` against a local stand-in for the Hub endpoints
(``tests/hub_standin.py``: loopback only, bounded, stopped at teardown). ``huggingface_hub`` and
``datasets`` read ``HF_ENDPOINT``/``HF_HUB_OFFLINE`` once at import, so the fixture sets the
environment *and* the module constants those variables initialise."""

from __future__ import annotations

import base64
import logging
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from hub_standin import GITATTRIBUTES, HubStandIn, point_clients_at

from polyprobe.cards.card import README, split_readme
from polyprobe.cli import main

FAKE_TOKEN = "hf_polyprobeFAKEtoken0123456789"
REPO = "polyprobe-test/demo"


def _build(out: Path, release: str, seed: int) -> Path:
    from polyprobe import build_ud
    from polyprobe.demo import DEMO_MIN_PER_CLASS, DEMO_TREEBANK

    build_ud(
        [DEMO_TREEBANK],
        lang="en",
        out=out,
        min_per_class=DEMO_MIN_PER_CLASS,
        seed=seed,
        release=release,
    )
    return out


@pytest.fixture(scope="module")
def releases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("releases")
    return {"1.0.0": _build(root / "v1", "1.0.0", 0), "1.1.0": _build(root / "v2", "1.1.0", 1)}


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    server = HubStandIn(max_requests=1500, deadline_s=60).start()
    point_clients_at(server, monkeypatch, tmp_path, FAKE_TOKEN)
    try:
        yield server
    finally:
        server.stop()


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def _publish(*args: str) -> int:
    return main(["publish", *args])


# ---------------------------------------------------------------------------------------------


def test_card_roundtrips_through_datasetcard(releases: dict[str, Path], tmp_path: Path) -> None:
    from huggingface_hub import DatasetCard

    readme = releases["1.0.0"] / README
    text = readme.read_text(encoding="utf-8")
    card = DatasetCard.load(readme)
    assert card.content == text
    card.save(tmp_path / README)
    assert (tmp_path / README).read_bytes() == readme.read_bytes()
    data, _ = split_readme(text)
    kept = card.data.to_dict()
    assert kept["configs"] == data["configs"] and kept["configs"]
    assert kept["polyprobe"]["release"] == "1.0.0"


def test_publish_is_one_commit_then_one_tag(
    hub: HubStandIn,
    releases: dict[str, Path],
    capsys: pytest.CaptureFixture,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    folder = releases["1.0.0"]
    assert _publish(str(folder), "--repo-id", REPO) == 0
    calls = hub.calls()
    base = f"/api/datasets/{REPO}"
    initial = next(iter(hub.repos[REPO].commits))  # the Hub's .gitattributes commit
    head = hub.repos[REPO].branches["main"]
    assert calls == [
        f"GET {base}/refs",  # 404: no repo yet; tag checked before any write
        "POST /api/repos/create",
        f"GET {base}/refs",
        f"GET {base}/tree/{initial}",
        "POST /api/validate-yaml",
        f"POST {base}/preupload/main",
        f"POST {base}/commit/main",
        f"POST {base}/tag/{head}",
    ]
    commit = next(r for r in hub.requests if "/commit/" in r.path).body
    assert commit[0] == {
        "key": "header",
        "value": {
            "summary": "polyprobe release v1.0.0",
            "description": commit[0]["value"]["description"],
            "parentCommit": initial,
        },
    }
    sent = {i["value"]["path"]: base64.b64decode(i["value"]["content"]) for i in commit[1:]}
    assert all(i["key"] == "file" for i in commit[1:])
    local = _files(folder)
    assert sent == local  # every file, byte for byte (README never regenerated)
    assert any(p.endswith(".parquet") for p in sent) and any(p.endswith(".png") for p in sent)
    assert {"README.md", "report.json"} <= set(sent)
    assert hub.requests[-1].body == {"tag": "v1.0.0", "message": "polyprobe release v1.0.0"}
    assert hub.repos[REPO].tags == {"v1.0.0": head}
    assert hub.files_at(REPO, "v1.0.0") == {**local, ".gitattributes": GITATTRIBUTES}
    # the token is sent, never shown
    assert all(r.authorized for r in hub.requests if r.path != "/api/agent-harnesses")
    out = capsys.readouterr()
    assert head in out.out
    assert FAKE_TOKEN not in out.out + out.err + caplog.text


def test_next_release_replaces_the_tree_and_keeps_old_tag(
    hub: HubStandIn, releases: dict[str, Path]
) -> None:
    assert _publish(str(releases["1.0.0"]), "--repo-id", REPO) == 0
    repo = hub.repos[REPO]
    v1 = repo.tags["v1.0.0"]
    stray = hub._new_commit(repo, v1, {**repo.commits[v1], "old/stray.txt": b"x"})  # someone else's
    del hub.requests[:]
    assert _publish(str(releases["1.1.0"]), "--repo-id", REPO) == 0
    assert [c for c in hub.calls() if c.startswith("POST") and "validate-yaml" not in c] == [
        f"POST /api/datasets/{REPO}/preupload/main",
        f"POST /api/datasets/{REPO}/commit/main",
        f"POST /api/datasets/{REPO}/tag/{repo.branches['main']}",
    ]
    commit = next(r for r in hub.requests if "/commit/" in r.path).body
    assert commit[0]["value"]["parentCommit"] == stray
    assert {"key": "deletedFile", "value": {"path": "old/stray.txt"}} in commit
    assert hub.files_at(REPO, "v1.1.0") == {
        **_files(releases["1.1.0"]),
        ".gitattributes": GITATTRIBUTES,
    }
    assert hub.files_at(REPO, "v1.0.0") == {
        **_files(releases["1.0.0"]),
        ".gitattributes": GITATTRIBUTES,
    }


def test_existing_tag_is_refused_before_any_write(
    hub: HubStandIn, releases: dict[str, Path], capsys: pytest.CaptureFixture
) -> None:
    assert _publish(str(releases["1.0.0"]), "--repo-id", REPO) == 0
    capsys.readouterr()
    n = len(hub.calls())
    for extra in ([], ["--dry-run"]):
        assert _publish(str(releases["1.0.0"]), "--repo-id", REPO, *extra) == 1
        assert "tag 'v1.0.0' already exists" in capsys.readouterr().err
    assert hub.calls()[n:] == [f"GET /api/datasets/{REPO}/refs"] * 2


def test_dry_run_lists_one_commit_and_one_tag_and_writes_nothing(
    hub: HubStandIn, releases: dict[str, Path], capsys: pytest.CaptureFixture
) -> None:
    folder = releases["1.0.0"]
    assert _publish(str(folder), "--repo-id", REPO, "--dry-run") == 0
    out = capsys.readouterr().out
    assert out.count("create_commit") == 1 and out.count("create_tag") == 1
    assert "operation 2 of 2: create_tag 'v1.0.0'" in out
    for rel, data in _files(folder).items():
        assert f"add     {rel} " in out and f"{len(data):,} bytes" in out
    assert hub.writes() == [] and REPO not in hub.repos
    assert hub.calls() == [f"GET /api/datasets/{REPO}/refs"]


def test_invalid_folder_and_bad_tag_are_refused(
    hub: HubStandIn, releases: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    broken = shutil.copytree(releases["1.0.0"], tmp_path / "broken")
    victim = next(broken.glob("data/*/train-*.parquet"))
    table = pq.read_table(victim)
    pq.write_table(table.slice(0, table.num_rows - 1), victim)
    assert _publish(str(broken), "--repo-id", REPO) == 1
    assert "not a valid dataset folder" in capsys.readouterr().err
    assert _publish(str(releases["1.0.0"]), "--repo-id", REPO, "--revision-tag", "v2.0.0") == 1
    assert "does not match the card's release" in capsys.readouterr().err
    assert hub.calls() == []


def test_load_pins_the_tag_and_reloads_a_stale_cache(
    hub: HubStandIn, releases: dict[str, Path], tmp_path: Path
) -> None:
    import polyprobe
    from polyprobe.hub import ReleaseMismatchError

    for version in ("1.0.0", "1.1.0"):
        assert _publish(str(releases[version]), "--repo-id", REPO) == 0
    config = "subject_number"
    cache = tmp_path / "cache"

    def ids(version: str) -> list[str]:
        path = releases[version] / "data" / config / "train-00000-of-00001.parquet"
        return pq.read_table(path).column("id").to_pylist()

    assert ids("1.0.0") != ids("1.1.0")
    loaded = {}
    for version in ("1.0.0", "1.1.0"):
        ds = polyprobe.load(REPO, config, version=version, cache_dir=cache)
        assert ds["train"]["id"] == ids(version)
        assert ds.release.commit == hub.repos[REPO].tags[f"v{version}"]
        assert ds.polyprobe["release"] == version and not ds.release.reloaded
        loaded[version] = ds
    # A short outage of the Hub for `datasets` (its next 2 requests: the README HEAD, which
    # huggingface_hub answers from its own cache, then the next probe, which fails): datasets
    # falls back to "the latest cached version" (1.1.0) for a 1.0.0 request. load notices the
    # commit mismatch and forces a re-download, which succeeds once the Hub is back.
    hub.fail_user_agent, hub.fail_count = "datasets/", 2
    ds = polyprobe.load(REPO, config, version="1.0.0", cache_dir=cache)
    assert ds.release.reloaded and "built from commit" in ds.release.notes[0]
    assert ds["train"]["id"] == ids("1.0.0")
    # the card at the tag must be the requested release
    repo = hub.repos[REPO]
    repo.tags["v9.9.9"] = repo.tags["v1.0.0"]
    with pytest.raises(ReleaseMismatchError, match="release '1.0.0'"):
        polyprobe.load(REPO, config, version="9.9.9", cache_dir=cache)


def test_load_local_folder_checks_the_release(releases: dict[str, Path], tmp_path: Path) -> None:
    import polyprobe
    from polyprobe.hub import ReleaseMismatchError

    folder = releases["1.1.0"]
    ds = polyprobe.load(folder, "subject_number", version="1.1.0", cache_dir=tmp_path)
    assert ds.release.version == "1.1.0" and ds.release.revision is None
    assert (
        ds.polyprobe["fingerprint"]
        == yaml.safe_load((folder / README).read_text(encoding="utf-8").split("---")[1])[
            "polyprobe"
        ]["fingerprint"]
    )
    with pytest.raises(ReleaseMismatchError):
        polyprobe.load(folder, "subject_number", version="1.0.0", cache_dir=tmp_path)
