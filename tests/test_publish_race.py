"""Two publishes of one release, racing, against the Hub stand-in (issue 36): whichever way
they interleave, the loser stops in one line before it moves ``main``, and ``main`` ends on the
winner's commit, which carries the tag. Also: what is uploaded is exactly the dataset's files,
and a folder the boundary refuses writes nothing at all.

The interleavings are forced, not hoped for: the winner's publish runs inside one of the
loser's Hub calls (or the loser's inside the winner's)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hub_standin import GITATTRIBUTES, HubStandIn, point_clients_at
from test_folder_writer import write_folder

from polyprobe.cards.boundary import open_folder
from polyprobe.cli import main
from polyprobe.hub import PublishError, publish

REPO = "polyprobe-test/race"
TAG = "v0.1.0"  # the writer's test folders carry the default release


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_folder(tmp_path_factory.mktemp("race") / "ds")


@pytest.fixture(scope="module")
def other(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same release with other rows: a second build racing the first."""
    from test_folder_writer import make_payloads

    payloads = make_payloads()
    return write_folder(tmp_path_factory.mktemp("race-other") / "ds", payloads[:1])


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[HubStandIn]:
    server = HubStandIn(max_requests=800, deadline_s=60).start()
    point_clients_at(server, monkeypatch, tmp_path, "hf_polyprobeFAKEtoken0123456789")
    try:
        yield server
    finally:
        server.stop()


def _commit_posts(hub: HubStandIn) -> int:
    return sum(1 for r in hub.writes() if "/commit/" in r.path)


def _main_is_tagged(hub: HubStandIn) -> None:
    repo = hub.repos[REPO]
    assert repo.tags == {TAG: repo.branches["main"]}, (repo.branches, repo.tags)


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    errors = [line for line in err if "error" in line]
    assert len(errors) == 1 and "Traceback" not in "\n".join(err), err
    return errors[0]


def test_the_loser_read_main_after_the_winner_committed(
    hub: HubStandIn, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """B runs (the CLI, start to end) between A's commit and A's tag: B sees an untagged
    head holding this release and stops before writing; A then tags its commit."""
    from huggingface_hub import HfApi

    seen: dict[str, Any] = {}

    class TagsLate(HfApi):
        def create_tag(self, *args: Any, **kwargs: Any) -> Any:
            seen["commits before B"] = _commit_posts(hub)
            seen["B exit"] = main(["publish", str(folder), "--repo-id", REPO])
            seen["B line"] = _one_line(capsys)
            seen["commits after B"] = _commit_posts(hub)
            return super().create_tag(*args, **kwargs)

    result = publish(folder, REPO, api=TagsLate())
    assert seen["B exit"] == 1
    head = result.commit_oid
    assert seen["B line"] == (
        f"polyprobe: error: main's head {head} on datasets/{REPO} already holds release {TAG} "
        f"but is not tagged: another publish of {TAG} is under way or stopped before tagging; "
        f"nothing was written. If none is running, tag that commit: HfApi().create_tag("
        f"{REPO!r}, tag={TAG!r}, revision={head!r}, repo_type='dataset')"
    )
    assert seen["commits after B"] == seen["commits before B"] == 1  # B committed nothing
    _main_is_tagged(hub)
    assert hub.repos[REPO].branches["main"] == head


@pytest.mark.parametrize("same_files", [False, True])
def test_the_loser_read_main_before_the_winner_committed(
    same_files: bool, hub: HubStandIn, folder: Path, other: Path
) -> None:
    """A runs (start to end) inside B's commit call, after B read main. With other files the
    Hub refuses B's commit, whose parent moved; with the same files the client sends none
    (main already holds them) and B says it lost. Either way main stays on A's tagged
    commit and B moved nothing."""
    from huggingface_hub import HfApi

    winner = folder if same_files else other
    won: dict[str, Any] = {}

    class CommitsLate(HfApi):
        def create_commit(self, *args: Any, **kwargs: Any) -> Any:
            won["A"] = publish(winner, REPO, api=HfApi())
            return super().create_commit(*args, **kwargs)

    with pytest.raises(PublishError) as info:
        publish(folder, REPO, api=CommitsLate())
    message = str(info.value)
    assert "\n" not in message and info.value.exit_code == 1
    parent = next(iter(hub.repos[REPO].commits))  # the repo's first commit, which B read
    a = won["A"].commit_oid
    created = f"nothing was committed (the empty repo datasets/{REPO} was created)"
    if same_files:
        assert message == (
            f"committing the folder: main on datasets/{REPO} moved since it was read at "
            f"{parent} to {a}, which already holds exactly these files: another publish of "
            f"{TAG} won the race and tags it; {created}"
        )
        assert _commit_posts(hub) == 1  # A's only
    else:
        assert message == (
            "committing the folder: the Hub answered 412 A commit has happened since. Please "
            f"refresh and try again. — main on datasets/{REPO} moved since it was read at "
            f"{parent}, so another publish won the race and main was not moved by this one "
            f"(publish again to re-check); {created}"
        )
        assert _commit_posts(hub) == 2  # A's, and B's refused one
    assert len(hub.repos[REPO].commits) == 2  # the first commit and A's: B's never landed
    assert hub.repos[REPO].branches["main"] == a
    assert hub.files_at(REPO, "main") == {
        ".gitattributes": GITATTRIBUTES,
        **{rel: (winner / rel).read_bytes() for rel in open_folder(winner).files()},
    }
    _main_is_tagged(hub)


def test_exactly_the_dataset_files_are_uploaded(
    hub: HubStandIn, folder: Path, tmp_path: Path
) -> None:
    """A stray regular file and a hidden one stay home; the commit's tree is the Hub's
    .gitattributes plus the boundary's file set, byte for byte."""
    local = Path(shutil.copytree(folder, tmp_path / "with-extras"))
    (local / "notes.txt").write_text("my notes, not data", encoding="utf-8")
    (local / ".cache").mkdir()
    (local / ".cache" / "x").write_text("cache", encoding="utf-8")
    assert main(["publish", str(local), "--repo-id", REPO]) == 0
    published = hub.files_at(REPO, TAG)
    dataset = open_folder(local).files()
    assert sorted(published) == sorted([".gitattributes", *dataset])
    assert published[".gitattributes"] == GITATTRIBUTES
    for rel in dataset:
        assert published[rel] == (local / rel).read_bytes(), rel
    assert "notes.txt" not in published and not any(p.startswith(".cache") for p in published)
    _main_is_tagged(hub)


def test_a_folder_holding_a_link_writes_nothing(
    hub: HubStandIn, folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    local = Path(shutil.copytree(folder, tmp_path / "linked"))
    (tmp_path / "secret.txt").write_text("the secret", encoding="utf-8")
    (local / "notes.txt").symlink_to("../secret.txt")
    assert main(["publish", str(local), "--repo-id", REPO]) == 2
    assert _one_line(capsys) == (
        f"polyprobe: error: {local / 'notes.txt'}: is a symbolic link; a dataset folder holds "
        "only regular files (nothing is read or published through a link)"
    )
    assert hub.calls() == [] and REPO not in hub.repos
