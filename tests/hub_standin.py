"""A small local HTTP stand-in for the Hugging Face Hub endpoints polyprobe's publish/load path
calls through ``huggingface_hub`` 2.4 and ``datasets`` 5.2 (the real Hub cannot run here).

Only dataset repos, only regular (non-LFS, non-Xet) files: ``preupload`` answers
``"uploadMode": "regular"`` for every file, so file contents travel base64-encoded inside the
NDJSON commit payload. Endpoints (URL shapes read from ``huggingface_hub/hf_api.py``,
``_commit_api.py`` and ``file_download.py``):

=======  ==============================================================  ==================
method   path                                                            client call
=======  ==============================================================  ==================
POST     /api/repos/create                                               create_repo
GET      /api/datasets/{id}/refs                                         list_repo_refs
GET      /api/datasets/{id}[/revision/{rev}]                             repo_info/dataset_info
GET      /api/datasets/{id}/tree/{rev}[/{path}]                          list_repo_tree
POST     /api/datasets/{id}/paths-info/{rev}                             get_paths_info (HfFileSystem)
POST     /api/validate-yaml                                              create_commit (README)
POST     /api/datasets/{id}/preupload/{rev}                              create_commit
POST     /api/datasets/{id}/commit/{rev}     (NDJSON)                    create_commit
POST     /api/datasets/{id}/tag/{rev}                                    create_tag
HEAD/GET /datasets/{id}/resolve/{rev}/{path}                             hf_hub_download, HfFileSystem
=======  ==============================================================  ==================

Every request is recorded in :attr:`HubStandIn.requests` (method, path, query, parsed body, and
whether an ``Authorization`` header came with it — never its value). The server listens on
127.0.0.1 only, on a free port, in a daemon thread; it answers at most ``max_requests``
requests and refuses everything after ``deadline_s`` seconds; :meth:`stop` shuts it down.
Like the real Hub, ``create`` makes an initial commit holding ``.gitattributes``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

# Requests huggingface_hub makes on its own (answered 404 here, which it tolerates).
HOUSEKEEPING = frozenset({"/api/agent-harnesses"})
GITATTRIBUTES = b"*.parquet filter=lfs diff=lfs merge=lfs -text\n"


def git_blob_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    body: Any
    authorized: bool
    user_agent: str


@dataclass
class Repo:
    repo_id: str
    private: bool
    commits: dict[str, dict[str, bytes]] = field(default_factory=dict)  # oid -> files
    branches: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)

    def resolve(self, rev: str) -> str | None:
        if rev in self.branches:
            return self.branches[rev]
        if rev in self.tags:
            return self.tags[rev]
        return rev if rev in self.commits else None


class HubStandIn:
    def __init__(self, *, max_requests: int = 2000, deadline_s: float = 120.0) -> None:
        self.repos: dict[str, Repo] = {}
        self.requests: list[Recorded] = []
        self.max_requests = max_requests
        self.deadline = time.monotonic() + deadline_s
        # simulated outage: the next ``fail_count`` requests whose User-Agent contains
        # ``fail_user_agent`` get a 404 RepoNotFound (e.g. ``"datasets/"`` hits only `datasets`)
        self.fail_user_agent: str | None = None
        self.fail_count = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    # -- lifecycle -------------------------------------------------------------------------
    @property
    def endpoint(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> HubStandIn:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    # -- helpers for tests -----------------------------------------------------------------
    def calls(self) -> list[str]:
        """``"METHOD /path"`` of every recorded request, in order, except the client's own
        housekeeping (huggingface_hub fetches its agent-harness registry once a day)."""
        return [f"{r.method} {r.path}" for r in self.requests if r.path not in HOUSEKEEPING]

    def writes(self) -> list[Recorded]:
        """Requests that change state (everything but reads and YAML validation)."""
        return [
            r
            for r in self.requests
            if r.method == "POST"
            and r.path not in HOUSEKEEPING
            and not r.path.endswith("/api/validate-yaml")
            and "/paths-info/" not in r.path
            and "/preupload/" not in r.path
        ]

    def files_at(self, repo_id: str, rev: str) -> dict[str, bytes]:
        repo = self.repos[repo_id]
        oid = repo.resolve(rev)
        assert oid is not None, rev
        return dict(repo.commits[oid])

    # -- state changes ---------------------------------------------------------------------
    def _new_commit(self, repo: Repo, parent: str | None, files: dict[str, bytes]) -> str:
        h = hashlib.sha1((parent or "").encode())
        for path in sorted(files):
            h.update(path.encode() + b"\0" + git_blob_sha1(files[path]).encode())
        h.update(str(len(repo.commits)).encode())
        oid = h.hexdigest()
        repo.commits[oid] = files
        repo.branches["main"] = oid
        return oid

    def create_repo(self, repo_id: str, private: bool = False) -> Repo:
        repo = Repo(repo_id, private)
        self.repos[repo_id] = repo
        self._new_commit(repo, None, {".gitattributes": GITATTRIBUTES})
        return repo


class _Reply(Exception):
    def __init__(self, status: int, body: Any = None, headers: dict[str, str] | None = None):
        self.status, self.body, self.headers = status, body, headers or {}


def _not_found(code: str, message: str) -> _Reply:
    return _Reply(404, {"error": message}, {"X-Error-Code": code, "X-Error-Message": message})


def _handler_for(hub: HubStandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # keep test output clean
            pass

        def do_GET(self) -> None:
            self._handle("GET")

        def do_HEAD(self) -> None:
            self._handle("HEAD")

        def do_POST(self) -> None:
            self._handle("POST")

        def _handle(self, method: str) -> None:
            split = urlsplit(self.path)
            path, query = unquote(split.path), parse_qs(split.query)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = _parse_body(self.headers.get("Content-Type", ""), raw)
            with hub._lock:
                rec = Recorded(
                    method,
                    path,
                    query,
                    body,
                    authorized="Authorization" in self.headers,
                    user_agent=self.headers.get("User-Agent", ""),
                )
                hub.requests.append(rec)
                try:
                    if len(hub.requests) > hub.max_requests or time.monotonic() > hub.deadline:
                        raise _Reply(429, {"error": "stand-in request budget exhausted"})
                    if (
                        hub.fail_count > 0
                        and hub.fail_user_agent
                        and hub.fail_user_agent in rec.user_agent
                    ):
                        hub.fail_count -= 1
                        raise _Reply(
                            404,
                            {"error": "stand-in: simulated outage"},
                            {"X-Error-Code": "RepoNotFound"},
                        )
                    status, payload, headers = 200, *_route(hub, self, method, path, query, body)
                except _Reply as reply:
                    status, payload, headers = reply.status, reply.body, reply.headers
            self._send(method, status, payload, headers)

        def _send(self, method: str, status: int, payload: Any, headers: dict[str, str]) -> None:
            if isinstance(payload, bytes):
                data = payload
                ctype = "application/octet-stream"
            else:
                data = json.dumps(payload if payload is not None else {}).encode()
                ctype = "application/json"
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            if method != "HEAD":
                self.wfile.write(data)

    return Handler


def _parse_body(ctype: str, raw: bytes) -> Any:
    if not raw:
        return None
    if "ndjson" in ctype:
        return [json.loads(line) for line in raw.splitlines() if line.strip()]
    if "json" in ctype:
        return json.loads(raw)
    if "x-www-form-urlencoded" in ctype:
        return parse_qs(raw.decode())
    return raw


def _repo(hub: HubStandIn, repo_id: str) -> Repo:
    repo = hub.repos.get(repo_id)
    if repo is None:
        raise _Reply(404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"})
    return repo


def _commit_of(repo: Repo, rev: str) -> str:
    oid = repo.resolve(rev)
    if oid is None:
        raise _not_found("RevisionNotFound", f"Invalid rev id: {rev}")
    return oid


def _entries(files: dict[str, bytes], prefix: str, recursive: bool) -> list[dict[str, Any]]:
    base = prefix.strip("/")
    out: dict[str, dict[str, Any]] = {}
    for path, data in sorted(files.items()):
        if base and not path.startswith(base + "/"):
            continue
        rest = path[len(base) + 1 :] if base else path
        parts = rest.split("/")
        for depth in range(1, len(parts)):
            folder = "/".join(([base] if base else []) + parts[:depth])
            out.setdefault(
                folder, {"type": "directory", "path": folder, "oid": "0" * 40, "size": 0}
            )
            if not recursive:
                break
        if recursive or len(parts) == 1:
            out[path] = {
                "type": "file",
                "path": path,
                "size": len(data),
                "oid": git_blob_sha1(data),
            }
    return list(out.values())


def _route(
    hub: HubStandIn,
    req: BaseHTTPRequestHandler,
    method: str,
    path: str,
    query: dict[str, list[str]],
    body: Any,
) -> tuple[Any, dict[str, str]]:
    parts = path.strip("/").split("/")
    if method == "POST" and path == "/api/repos/create":
        repo_id = (
            f"{body['organization']}/{body['name']}" if body.get("organization") else body["name"]
        )
        if body.get("type") != "dataset":
            raise _Reply(400, {"error": "stand-in serves dataset repos only"})
        if repo_id in hub.repos:
            raise _Reply(409, {"error": "You already created this dataset repo", "url": ""})
        hub.create_repo(repo_id, private=body.get("visibility") == "private")
        return {"url": f"{hub.endpoint}/datasets/{repo_id}", "name": repo_id}, {}
    if method == "POST" and path == "/api/validate-yaml":
        return {"errors": [], "warnings": []}, {}
    if parts[:2] == ["api", "datasets"] and len(parts) >= 4:
        repo = _repo(hub, f"{parts[2]}/{parts[3]}")
        action, rest = (parts[4], parts[5:]) if len(parts) > 4 else ("info", [])
        if action == "info" or (action == "revision" and method == "GET"):
            oid = _commit_of(repo, rest[0] if rest else "main")
            files = repo.commits[oid]
            return {
                "_id": repo.repo_id,
                "id": repo.repo_id,
                "private": repo.private,
                "sha": oid,
                "siblings": [{"rfilename": p} for p in sorted(files)],
                "tags": [],
                "downloads": 0,
                "likes": 0,
                "disabled": False,
                "gated": False,
            }, {}
        if action == "refs" and method == "GET":

            def ref(kind: str, name: str, oid: str) -> dict[str, str]:
                return {"name": name, "ref": f"refs/{kind}/{name}", "targetCommit": oid}

            return {
                "branches": [ref("heads", n, o) for n, o in repo.branches.items()],
                "tags": [ref("tags", n, o) for n, o in repo.tags.items()],
                "converts": [],
            }, {}
        if action == "tree" and method == "GET":
            oid = _commit_of(repo, rest[0])
            recursive = query.get("recursive", ["False"])[0].lower() in ("1", "true")
            return _entries(repo.commits[oid], "/".join(rest[1:]), recursive), {}
        if action == "paths-info" and method == "POST":
            files = repo.commits[_commit_of(repo, rest[0])]
            wanted = (body or {}).get("paths", [])
            out = []
            for p in wanted:
                p = p.strip("/")
                if p in files:
                    out.append(
                        {
                            "type": "file",
                            "path": p,
                            "size": len(files[p]),
                            "oid": git_blob_sha1(files[p]),
                        }
                    )
                elif any(f.startswith(p + "/") for f in files) or p == "":
                    out.append({"type": "directory", "path": p, "oid": "0" * 40, "size": 0})
            return out, {}
        if action == "preupload" and method == "POST":
            files = repo.commits[_commit_of(repo, rest[0])]
            return {
                "files": [
                    {
                        "path": f["path"],
                        "uploadMode": "regular",
                        "shouldIgnore": False,
                        "oid": git_blob_sha1(files[f["path"]]) if f["path"] in files else None,
                    }
                    for f in body["files"]
                ]
            }, {}
        if action == "commit" and method == "POST":
            branch = rest[0]
            head = repo.branches.get(branch)
            header = body[0]["value"]
            if "parentCommit" in header and header["parentCommit"] != head:
                raise _Reply(
                    412, {"error": "A commit has happened since. Please refresh and try again."}
                )
            files = dict(repo.commits[head]) if head else {}
            for item in body[1:]:
                value = item["value"]
                if item["key"] == "file":
                    files[value["path"]] = base64.b64decode(value["content"])
                elif item["key"] == "deletedFile":
                    if value["path"] not in files:
                        raise _not_found("EntryNotFound", "A file with this name doesn't exist")
                    del files[value["path"]]
                elif item["key"] == "deletedFolder":
                    files = {
                        k: v
                        for k, v in files.items()
                        if not k.startswith(value["path"].rstrip("/") + "/")
                    }
                else:
                    raise _Reply(400, {"error": f"stand-in: unsupported commit item {item['key']}"})
            oid = hub._new_commit(repo, head, files)
            return {
                "commitUrl": f"{hub.endpoint}/datasets/{repo.repo_id}/commit/{oid}",
                "commitOid": oid,
                "success": True,
            }, {}
        if action == "tag" and method == "POST":
            oid = _commit_of(repo, rest[0])
            if body["tag"] in repo.tags:
                raise _Reply(409, {"error": f"Tag {body['tag']} already exists"})
            repo.tags[body["tag"]] = oid
            return {}, {}
    if (
        parts[:1] == ["datasets"]
        and len(parts) >= 6
        and parts[3] == "resolve"
        and method in ("GET", "HEAD")
    ):
        repo = _repo(hub, f"{parts[1]}/{parts[2]}")
        oid = _commit_of(repo, parts[4])
        name = "/".join(parts[5:])
        files = repo.commits[oid]
        if name not in files:
            raise _Reply(
                404,
                {"error": "Entry not found"},
                {"X-Error-Code": "EntryNotFound", "X-Repo-Commit": oid},
            )
        data = files[name]
        headers = {"X-Repo-Commit": oid, "ETag": f'"{git_blob_sha1(data)}"'}
        rng = req.headers.get("Range", "")
        if method == "GET" and rng.startswith("bytes="):
            first, _, last = rng[len("bytes=") :].partition("-")
            start = int(first) if first else max(0, len(data) - int(last))
            end = int(last) if first and last else len(data) - 1
            end = min(end, len(data) - 1)
            headers["Content-Range"] = f"bytes {start}-{end}/{len(data)}"
            raise _Reply(206, data[start : end + 1], headers)
        return data, headers
    raise _Reply(404, {"error": f"stand-in: no route for {method} {path}"})


def point_clients_at(server: HubStandIn, monkeypatch: Any, tmp_path: Any, token: str) -> None:
    """Point ``huggingface_hub`` and ``datasets`` at ``server`` for one test: they read
    ``HF_ENDPOINT``/``HF_HUB_OFFLINE`` once at import, so the environment *and* the module
    constants those variables initialise are set (``monkeypatch`` undoes both)."""
    import datasets.config
    import huggingface_hub.constants as hc

    ep = server.endpoint
    monkeypatch.setenv("HF_ENDPOINT", ep)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)
    monkeypatch.setenv("HF_TOKEN", token)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setattr(hc, "ENDPOINT", ep)
    monkeypatch.setattr(
        hc, "HUGGINGFACE_CO_URL_TEMPLATE", ep + "/{repo_id}/resolve/{revision}/{filename}"
    )
    monkeypatch.setattr(hc, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(hc, "HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))
    monkeypatch.setattr(hc, "HF_TOKEN_PATH", str(tmp_path / "hf" / "token"))
    for name in ("AGENT_HARNESSES_PATH", "CHECK_FOR_SKILL_UPDATE_DONE_PATH"):  # housekeeping
        if hasattr(hc, name):
            monkeypatch.setattr(hc, name, str(tmp_path / "hf" / name.lower()))
    monkeypatch.setattr(datasets.config, "HF_ENDPOINT", ep)
    monkeypatch.setattr(
        datasets.config, "HUB_DATASETS_URL", ep + "/datasets/{repo_id}/resolve/{revision}/{path}"
    )
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf" / "datasets")
