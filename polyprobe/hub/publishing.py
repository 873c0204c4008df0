"""``polyprobe publish``: a validated dataset folder becomes one Hub commit plus one version tag.

Order of operations (each step only after the previous one succeeded):

1. The folder's boundary (``cards.boundary``: a link in it, a data file outside it, a card over
   the limits is one line, exit 2), then ``validate(DIR)`` — a folder it rejects is never
   published (exit 1, its problems listed). What is uploaded is exactly the boundary's file
   set: README.md, the files the card names, report.json, plots/ (other files are listed as
   skipped).
2. Read-only Hub calls: ``list_repo_refs`` (is the version tag free? what is ``main``'s head?)
   and, for an existing repo, ``list_repo_tree`` at that head (which remote files to delete).
   A tag that already exists is refused here, before anything is written.
3. ``create_repo(exist_ok=True)`` only when the repo does not exist yet.
4. One ``create_commit`` on ``main`` with ``parent_commit`` = the head read in step 2 (the Hub
   refuses the commit if someone pushed in between): a ``CommitOperationAdd`` per file of the
   folder (README.md uploaded byte for byte, never regenerated) and a ``CommitOperationDelete``
   per remote file the folder does not have, so the commit's tree *is* the folder. The Hub's
   own ``.gitattributes`` is kept: it is repository infrastructure, not data.
5. ``create_tag`` ``v<release>`` at that commit's oid.

Two publishes of one release racing: the one that read ``main`` before the other's commit is
refused by the Hub at step 4 (its parent moved); the one that read it after sees an untagged
head holding this release and is refused at step 2. Either way the loser stops before it moves
``main``, in one line, and ``main`` is left on the winner's commit, which it tags.

``--dry-run`` runs steps 1–2 and prints the commit (file list and sizes) and the tag. Step 2
needs the Hub: when it cannot be reached (``HF_HUB_OFFLINE=1``, no network) the dry run still
prints the plan from the folder and says plainly that the tag check and the list of remote
files to delete were not done. A real publish never goes on without them: it stops with one
line (:class:`~polyprobe.hub.reach.HubUnreachableError`, exit 2), and a Hub call that fails
later says what had been written by then.

The token comes from ``huggingface_hub``'s usual sources (``HF_TOKEN``, the cached login); this
module never reads, prints or stores it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyprobe.cards.boundary import DatasetFolder, open_folder
from polyprobe.errors import PolyprobeError
from polyprobe.hub.cardinfo import (
    card_fingerprint,
    card_release,
    read_card_text,
    release_tag,
)
from polyprobe.hub.reach import HubUnreachableError, hub_step

REPO_TYPE = "dataset"
BRANCH = "main"
KEEP_REMOTE = frozenset({".gitattributes"})  # created by the Hub with the repo
_TAG = re.compile(r"^v\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$")


class PublishError(PolyprobeError):
    """Publishing refused or failed (CLI exit 1)."""

    exit_code = 1


@dataclass(frozen=True)
class LocalFile:
    path_in_repo: str
    local: Path
    size: int


@dataclass
class PublishPlan:
    folder: Path
    repo_id: str
    endpoint: str
    release: str
    tag: str
    fingerprint: str | None
    private: bool
    repo_exists: bool
    parent_commit: str | None
    uploads: list[LocalFile]
    deletes: list[str]
    kept: list[str] = field(default_factory=list)
    # Regular files of the folder that are no part of the dataset: never uploaded.
    skipped: list[str] = field(default_factory=list)
    # Why the Hub was not read (a dry run offline); None when step 2 ran.
    unchecked: str | None = None

    @property
    def commit_message(self) -> str:
        return f"polyprobe release {self.tag}"

    @property
    def commit_description(self) -> str:
        return f"release {self.release}, fingerprint {self.fingerprint or 'unknown'}"

    def describe(self) -> str:
        """The exact operations, one commit and one tag, as ``--dry-run`` prints them."""
        width = max((len(f.path_in_repo) for f in self.uploads), default=0)
        if self.unchecked:
            repo_state = "not checked: the Hub was not reached"
        elif self.repo_exists:
            repo_state = "exists"
        else:
            repo_state = f"does not exist; create_repo(private={self.private}) first"
        parent = self.parent_commit or (
            f"<{BRANCH}'s head, read when publishing>"
            if self.unchecked
            else "<head after create_repo>"
        )
        lines = [
            f"repository: {self.endpoint}/datasets/{self.repo_id} ({repo_state})",
            f"operation 1 of 2: create_commit on {BRANCH!r}, parent_commit={parent}, "
            f"message {self.commit_message!r}",
        ]
        lines += [f"  add     {f.path_in_repo:<{width}}  {f.size:>12,} bytes" for f in self.uploads]
        lines += [f"  delete  {p}" for p in self.deletes]
        lines += [f"  keep    {p}  (Hub infrastructure, not data)" for p in self.kept]
        lines += [f"  skip    {p}  (in the folder, not part of the dataset)" for p in self.skipped]
        total = sum(f.size for f in self.uploads)
        deleted = (
            "remote files to delete unknown"
            if self.unchecked
            else (f"{len(self.deletes)} file(s) deleted")
        )
        lines.append(f"  = {len(self.uploads)} file(s) added, {total:,} bytes; {deleted}")
        lines.append(f"operation 2 of 2: create_tag {self.tag!r} at the new commit's oid")
        if self.unchecked:
            lines += [
                f"NOT CHECKED: whether tag {self.tag!r} is free, {BRANCH}'s head and which remote "
                f"files would be deleted need the Hub, which was not reached ({self.unchecked}).",
                "A real publish checks them before it writes anything, and stops if the Hub "
                "cannot be reached.",
            ]
        return "\n".join(lines)


@dataclass(frozen=True)
class PublishResult:
    plan: PublishPlan
    commit_oid: str
    commit_url: str
    tag: str


def _local_files(folder: DatasetFolder) -> list[LocalFile]:
    """The dataset's files as the boundary names them (``cards.boundary``): README.md, the
    files the card's configs name, report.json, plots/. Nothing else in the folder is
    uploaded, and no link is followed (a folder holding one was refused)."""
    out = []
    for rel in folder.files():
        path = folder.path(rel)
        out.append(LocalFile(rel, path, path.stat().st_size))
    return out


def _skipped(operations: list[Any]) -> bool:
    """Whether ``create_commit`` sent nothing because every file equals main's head (its
    additions know both blob ids once it has asked the Hub)."""
    if any(not hasattr(op, "_remote_oid") for op in operations):
        return False  # a deletion, or a client that does not say: a commit was sent
    try:
        return all(
            op._remote_oid is not None and op._remote_oid == op._local_oid for op in operations
        )
    except Exception:  # noqa: BLE001 - private attributes of the client: unknown is "sent"
        return False


def _api(api: Any) -> Any:
    if api is not None:
        return api
    from huggingface_hub import HfApi

    return HfApi()


def _read_refs(api: Any, repo_id: str) -> Any | None:
    """The repo's refs, or ``None`` when the repo does not exist (or is invisible to us)."""
    from huggingface_hub.errors import RepositoryNotFoundError

    try:
        return api.list_repo_refs(repo_id, repo_type=REPO_TYPE)
    except RepositoryNotFoundError:
        return None


def _head_and_tags(refs: Any | None) -> tuple[str | None, dict[str, str]]:
    """``main``'s head and ``{tag: commit}``, from one read of the refs."""
    if refs is None:
        return None, {}
    head = next((b.target_commit for b in refs.branches if b.name == BRANCH), None)
    return head, {t.name: t.target_commit for t in refs.tags}


def _refuse_existing_tag(tags: dict[str, str], tag: str, repo_id: str) -> None:
    if tag in tags:
        raise PublishError(
            f"tag {tag!r} already exists on datasets/{repo_id}; a published version never "
            "changes. Build a new release (bump the version) and publish that instead."
        )


def _refuse_untagged_release_head(
    api: Any, repo_id: str, head: str | None, tags: dict[str, str], remote: list[str], tag: str
) -> None:
    """Refuse when ``main``'s head is an untagged commit of this very release: another
    publish of it committed and has not tagged yet (or stopped before tagging). Without this
    check two publishes of one release could both commit, the second on top of the first,
    and ``main`` end on the loser's untagged commit. With it and the commit's parent check,
    every interleaving leaves one winner: a publish that read the head before the other's
    commit is refused by the Hub at its own commit (the parent moved), one that read it
    after is refused here — both before anything moves ``main``."""
    if head is None or head in tags.values() or "README.md" not in remote:
        return
    with hub_step("reading the head's card", "nothing was written", PublishError):
        readme = api.hf_hub_download(repo_id, "README.md", repo_type=REPO_TYPE, revision=head)
    try:
        card = read_card_text(Path(readme).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return  # not a polyprobe card: a commit of someone else's, not a release in flight
    if release_tag(card_release(card)) != tag:
        return
    raise PublishError(
        f"{BRANCH}'s head {head} on datasets/{repo_id} already holds release {tag} but is not "
        f"tagged: another publish of {tag} is under way or stopped before tagging; nothing was "
        f"written. If none is running, tag that commit: HfApi().create_tag({repo_id!r}, "
        f"tag={tag!r}, revision={head!r}, repo_type='dataset')"
    )


def _remote_files(api: Any, repo_id: str, head: str | None) -> list[str]:
    if head is None:
        return []
    from huggingface_hub.hf_api import RepoFile

    entries = api.list_repo_tree(repo_id, repo_type=REPO_TYPE, revision=head, recursive=True)
    return sorted(e.path for e in entries if isinstance(e, RepoFile))


def plan_publish(
    folder: str | Path,
    repo_id: str,
    *,
    revision_tag: str | None = None,
    private: bool = False,
    api: Any = None,
    offline_ok: bool = False,
) -> PublishPlan:
    """Validate the folder and read the Hub (read-only) to decide the exact operations.

    Raises :class:`PublishError` when the folder is invalid, the tag is malformed, does not
    match the card's release, or already exists on the Hub; :class:`HubUnreachableError`
    when the Hub cannot be read, unless ``offline_ok`` (a dry run): then the plan is made from
    the folder alone and says what was not checked (``PublishPlan.unchecked``)."""
    from polyprobe.cards.validate import validate

    folder = Path(folder)
    if "/" not in repo_id or repo_id.count("/") != 1:
        raise PublishError(f"--repo-id {repo_id!r}: expected ORG/NAME")
    dataset = open_folder(folder)  # the boundary's first problem, in validate's words
    report = validate(folder)
    if not report.ok:
        problems = "\n".join(f"  - {p}" for p in report.problems)
        raise PublishError(
            f"{folder} is not a valid dataset folder ({len(report.problems)} problem(s)); "
            f"nothing was published:\n{problems}"
        )
    card = dataset.card
    release = card_release(card)
    tag = revision_tag or release_tag(release)
    if not _TAG.match(tag):
        raise PublishError(f"--revision-tag {tag!r}: expected vMAJOR.MINOR.PATCH, e.g. v1.0.0")
    if tag != release_tag(release):
        raise PublishError(
            f"--revision-tag {tag!r} does not match the card's release {release!r} "
            f"(expected {release_tag(release)!r}); polyprobe.load(version=...) checks that "
            "they agree. Rebuild with the release you mean."
        )
    api = _api(api)
    uploads = _local_files(dataset)
    skipped = sorted(dataset.tree - {f.path_in_repo for f in uploads})
    nothing = "nothing was written"
    try:
        with hub_step("reading the repo's tags", nothing, PublishError):
            refs = _read_refs(api, repo_id)
        head, tags = _head_and_tags(refs)
        _refuse_existing_tag(tags, tag, repo_id)
        with hub_step("listing the repo's files", nothing, PublishError):
            remote = _remote_files(api, repo_id, head)
        _refuse_untagged_release_head(api, repo_id, head, tags, remote, tag)
    except HubUnreachableError as exc:
        if not offline_ok:
            raise
        return PublishPlan(
            folder=folder,
            repo_id=repo_id,
            endpoint=str(api.endpoint),
            release=release,
            tag=tag,
            fingerprint=card_fingerprint(card),
            private=private,
            repo_exists=False,
            parent_commit=None,
            uploads=uploads,
            deletes=[],
            skipped=skipped,
            unchecked=exc.reason,
        )
    local = {f.path_in_repo for f in uploads}
    return PublishPlan(
        folder=folder,
        repo_id=repo_id,
        endpoint=str(api.endpoint),
        release=release,
        tag=tag,
        fingerprint=card_fingerprint(card),
        private=private,
        repo_exists=refs is not None,
        parent_commit=head,
        uploads=uploads,
        deletes=[p for p in remote if p not in local and p not in KEEP_REMOTE],
        kept=[p for p in remote if p not in local and p in KEEP_REMOTE],
        skipped=skipped,
    )


def publish(
    folder: str | Path,
    repo_id: str,
    *,
    revision_tag: str | None = None,
    private: bool = False,
    dry_run: bool = False,
    api: Any = None,
    echo: Callable[[str], None] | None = None,
) -> PublishPlan | PublishResult:
    """Publish ``folder`` to ``datasets/<repo_id>`` as one commit + one tag (see module doc).

    Returns the plan for ``dry_run``, else a :class:`PublishResult` with the commit's oid."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete
    from huggingface_hub.errors import HfHubHTTPError

    api = _api(api)
    plan = plan_publish(
        folder, repo_id, revision_tag=revision_tag, private=private, api=api, offline_ok=dry_run
    )
    if dry_run:
        return plan
    say = echo or (lambda _msg: None)
    nothing = "nothing was written"
    if not plan.repo_exists:
        say(f"creating dataset repo {repo_id} ({'private' if private else 'public'})")
        with hub_step("creating the repo", nothing, PublishError):
            api.create_repo(repo_id, repo_type=REPO_TYPE, private=private, exist_ok=True)
        # The Hub makes an initial commit (.gitattributes): re-read the head and the tree.
        empty = f"the empty repo datasets/{repo_id} was created, no file was committed"
        with hub_step("reading the new repo's tags", empty, PublishError):
            head, tags = _head_and_tags(_read_refs(api, repo_id))
        _refuse_existing_tag(tags, plan.tag, repo_id)
        with hub_step("listing the new repo's files", empty, PublishError):
            remote = _remote_files(api, repo_id, head)
        _refuse_untagged_release_head(api, repo_id, head, tags, remote, plan.tag)
        local = {f.path_in_repo for f in plan.uploads}
        plan.parent_commit = head
        plan.deletes = [p for p in remote if p not in local and p not in KEEP_REMOTE]
        plan.kept = [p for p in remote if p not in local and p in KEEP_REMOTE]
    operations: list[Any] = [
        CommitOperationAdd(path_in_repo=f.path_in_repo, path_or_fileobj=str(f.local))
        for f in plan.uploads
    ]
    operations += [CommitOperationDelete(path_in_repo=p) for p in plan.deletes]
    say(f"committing {len(plan.uploads)} file(s), {len(plan.deletes)} deletion(s) to {repo_id}")
    created = "" if plan.repo_exists else f" (the empty repo datasets/{repo_id} was created)"
    with hub_step(
        "committing the folder",
        f"nothing was committed{created}",
        PublishError,
        unanswered="a commit is applied whole or not at all: look at the repo's history "
        "before publishing again",
    ):
        try:
            info = api.create_commit(
                repo_id,
                operations,
                commit_message=plan.commit_message,
                commit_description=plan.commit_description,
                repo_type=REPO_TYPE,
                revision=BRANCH,
                parent_commit=plan.parent_commit,
            )
        except HfHubHTTPError as exc:
            if getattr(getattr(exc, "response", None), "status_code", None) != 412:
                raise
            said = " ".join(str(getattr(exc, "server_message", None) or "").split())
            raise PublishError(
                f"committing the folder: the Hub answered 412 {said} — {BRANCH} on "
                f"datasets/{repo_id} moved since it was read at {plan.parent_commit}, so "
                f"another publish won the race and {BRANCH} was not moved by this one (publish "
                f"again to re-check); nothing was committed{created}"
            ) from None
    if info.oid != plan.parent_commit and _skipped(operations):
        # huggingface_hub compares the files with main's head *now* and, finding them the
        # same, sends no commit (so no parent check) and returns that head: another publish
        # of these very files moved main since it was read. Tagging its commit here would
        # make the winner's own tag fail.
        raise PublishError(
            f"committing the folder: {BRANCH} on datasets/{repo_id} moved since it was read at "
            f"{plan.parent_commit} to {info.oid}, which already holds exactly these files: "
            f"another publish of {plan.tag} won the race and tags it; nothing was committed"
            f"{created}"
        )
    say(f"tagging {info.oid} as {plan.tag}")
    untagged = (
        f"commit {info.oid} is on {BRANCH!r} but untagged; tag it with HfApi().create_tag("
        f"{repo_id!r}, tag={plan.tag!r}, revision={info.oid!r}, repo_type='dataset')"
    )
    with hub_step(f"tagging commit {info.oid} as {plan.tag}", untagged, PublishError):
        api.create_tag(
            repo_id,
            tag=plan.tag,
            revision=info.oid,
            repo_type=REPO_TYPE,
            tag_message=plan.commit_message,
        )
    return PublishResult(plan=plan, commit_oid=info.oid, commit_url=info.commit_url, tag=plan.tag)
