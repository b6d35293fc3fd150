"""A small in-memory GitHub REST server for the apply job's tests (PyGithub talks to it over HTTP).

It keeps issues (pull requests are issues too, as on GitHub), comments, labels, git blobs,
trees, commits and refs, and pull requests; records every request (method, path, query, JSON
body, Authorization header) so tests can assert the exact calls; and can be told to fail the
next matching requests with a status and headers (rate limits, 5xx). Blob hashes are real git
hashes, so a tree seeded from a local repository matches the patches made from it.

Workflow runs (``runs``) answer ``GET /actions/runs/{id}`` with their event and the repository
their code came from, as GitHub records them (the origin an apply job trusts).

Who a token is, as GitHub answers it: ``identities`` maps a token to a login and a kind. A
``user`` token (a personal access token) answers ``GET /user``; an ``app`` token (an
installation token, such as the job's ``GITHUB_TOKEN``) gets GitHub's 403 "Resource not
accessible by integration" there, and GraphQL's ``viewer`` gives its bot login. A token not in
``identities`` is the job's ``GITHUB_TOKEN``: ``github-actions[bot]``. Every issue and comment
carries its author (``user``) as GitHub sets it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import subprocess
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

from tests.servers.http_server import LocalHTTPServer


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    body: Any
    authorization: str


@dataclass
class Failure:
    method: str
    pattern: str
    status: int
    headers: dict[str, str]
    message: str
    times: int
    after: bool = False
    """Do the work, then answer with the failure (a write that succeeded but answered 5xx)."""


def git_blob_sha(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _user(login: str, kind: str) -> dict[str, str]:
    return {"login": login, "type": "Bot" if kind == "app" else "User"}


def _sha(value: Any) -> str:
    return hashlib.sha1(json.dumps(value, sort_keys=True).encode()).hexdigest()


@dataclass
class FakeGitHub:
    owner: str = "octo"
    name: str = "hello"
    default_branch: str = "main"
    requests: list[Request] = field(default_factory=list)
    issues: dict[int, dict[str, Any]] = field(default_factory=dict)
    comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    blobs: dict[str, bytes] = field(default_factory=dict)
    trees: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict)
    commits: dict[str, dict[str, Any]] = field(default_factory=dict)
    refs: dict[str, str] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)
    identities: dict[str, tuple[str, str]] = field(default_factory=dict)
    """token -> (login, ``user`` or ``app``)."""
    reviews: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    actions_can_approve: bool = True
    """The repository setting "Allow GitHub Actions to create and approve pull requests"."""
    graphql: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    """Every GraphQL request: (query, variables)."""
    discussions: list[dict[str, Any]] = field(default_factory=list)
    categories: dict[str, str] = field(default_factory=lambda: {"DIC_general": "General", "DIC_ideas": "Ideas"})
    """Discussion categories: node ID -> name."""
    runs: dict[int, dict[str, Any]] = field(default_factory=dict)
    """Workflow runs GitHub knows (``GET /actions/runs/{id}``): id -> ``event`` and
    ``head_repository`` (``owner/name``, or None for a deleted fork)."""

    def __post_init__(self) -> None:
        self.lock = threading.Lock()
        self._next_id = 1000
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                parsed = urlparse(self.path)
                query = {k: v[0] for k, v in parse_qs(parsed.query).items()}
                body = json.loads(raw) if raw else None
                auth = self.headers.get("Authorization", "")
                status, payload, headers = fake.dispatch(Request(self.command, unquote(parsed.path), query, body, auth))
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = _handle

        self.server = LocalHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    # -- test controls

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def repo_path(self) -> str:
        return f"/repos/{self.owner}/{self.name}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def fail(self, method: str, pattern: str, status: int, headers: dict[str, str] | None = None, **kw: Any) -> None:
        """Fail the next ``times`` requests whose method matches and path matches ``pattern``."""
        message = kw.get("message", "Server Error")
        failure = Failure(method, pattern, status, headers or {}, message, kw.get("times", 1), kw.get("after", False))
        self.failures.append(failure)

    def calls(self, method: str | None = None, pattern: str = "") -> list[Request]:
        return [r for r in self.requests if (method is None or r.method == method) and re.search(pattern, r.path)]

    def add_issue(
        self, title: str = "Triggering issue", body: str = "", pull: bool = False, author: str = "octo-human"
    ) -> int:
        with self.lock:
            return self._new_issue({"title": title, "body": body, "labels": []}, _user(author, "user"), pull)["number"]

    def add_comment(self, number: int, body: str, author: str) -> None:
        """A comment someone else wrote (a stranger can comment on any public issue)."""
        with self.lock:
            self._new_comment(number, body, _user(author, "user"))

    def add_pull(
        self, files: list[dict[str, Any]], head_sha: str, author: str = "octo-human", head: str = "feature"
    ) -> int:
        """A pull request whose ``GET /pulls/{n}/files`` answers ``files`` (the API's shape: filename,
        status, previous_filename, patch) at head ``head_sha``."""
        with self.lock:
            issue = self._new_issue({"title": "A change", "body": ""}, _user(author, "user"), pull=True)
            issue.update(_head=head, _base=self.default_branch, _draft=False, _files=files, _head_sha=head_sha)
            return int(issue["number"])

    def move_head(self, number: int, sha: str) -> None:
        """New commits pushed: the pull request's head is now ``sha``."""
        with self.lock:
            self.issues[number]["_head_sha"] = sha

    def identity(self, authorization: str) -> tuple[str, str]:
        token = authorization.split(" ", 1)[-1]
        return self.identities.get(token, ("github-actions[bot]", "app"))

    def seed_from_git(self, repo: Path) -> str:
        """Copy the HEAD commit of a local repository (its files, modes and hash) as ``main``."""
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True)
        listing = subprocess.run(["git", "ls-tree", "-r", "-z", "HEAD"], cwd=repo, capture_output=True, check=True)
        entries: dict[str, tuple[str, str]] = {}
        for item in listing.stdout.split(b"\0"):
            if not item:
                continue
            meta, _, path = item.partition(b"\t")
            mode, _kind, sha = meta.decode().split()
            data = subprocess.run(["git", "cat-file", "blob", sha], cwd=repo, capture_output=True, check=True).stdout
            self.blobs[sha] = data
            entries[path.decode()] = (mode, sha)
        tree = _sha(entries)
        self.trees[tree] = entries
        sha = head.stdout.strip()
        self.commits[sha] = {"tree": tree, "parents": [], "message": "initial"}
        self.refs[f"heads/{self.default_branch}"] = sha
        return sha

    def files_at(self, ref: str) -> dict[str, tuple[str, bytes]]:
        """path -> (mode, content) of a branch's commit."""
        entries = self.trees[self.commits[self.refs[f"heads/{ref}"]]["tree"]]
        return {path: (mode, self.blobs[sha]) for path, (mode, sha) in entries.items()}

    # -- the API

    def _api(self, path: str) -> str:
        return f"{self.url}{self.repo_path}{path}"

    def _issue_json(self, issue: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in issue.items() if not k.startswith("_")}

    def _new_comment(self, number: int, body: str, user: dict[str, str]) -> dict[str, Any]:
        self._next_id += 1
        comment = {
            "id": self._next_id,
            "body": body,
            "user": user,
            "url": self._api(f"/issues/comments/{self._next_id}"),
            "html_url": f"{self.issues[number]['html_url']}#issuecomment-{self._next_id}",
            "node_id": f"IC_kwDOfake{self._next_id}",
        }
        self.comments.setdefault(number, []).append(comment)
        return comment

    def _new_issue(self, data: dict[str, Any], user: dict[str, str], pull: bool = False) -> dict[str, Any]:
        number = max([0, *self.issues]) + 1
        kind = "pull" if pull else "issues"
        issue = {
            "number": number,
            "title": data.get("title", ""),
            "body": data.get("body"),
            "state": "open",
            "labels": [{"name": n} for n in data.get("labels", [])],
            "user": user,
            "url": self._api(f"/issues/{number}"),
            "html_url": f"https://github.com/{self.owner}/{self.name}/{kind}/{number}",
        }
        if pull:
            issue["pull_request"] = {"url": self._api(f"/pulls/{number}")}
        self.issues[number] = issue
        return issue

    def _pull_json(self, issue: dict[str, Any]) -> dict[str, Any]:
        return {
            **self._issue_json(issue),
            "url": self._api(f"/pulls/{issue['number']}"),
            "issue_url": self._api(f"/issues/{issue['number']}"),
            "head": {
                "ref": issue["_head"],
                "label": f"{self.owner}:{issue['_head']}",
                "sha": self.refs.get(f"heads/{issue['_head']}", issue.get("_head_sha", "0" * 40)),
                "repo": {"full_name": issue.get("_head_repo", f"{self.owner}/{self.name}")},
            },
            "base": {"ref": issue["_base"]},
            "draft": issue["_draft"],
        }

    def _commit_json(self, sha: str) -> dict[str, Any]:
        commit = self.commits[sha]
        return {
            "sha": sha,
            "url": self._api(f"/git/commits/{sha}"),
            "message": commit["message"],
            "tree": {"sha": commit["tree"], "url": self._api(f"/git/trees/{commit['tree']}")},
            "parents": [{"sha": p, "url": self._api(f"/git/commits/{p}")} for p in commit["parents"]],
        }

    def _tree_json(self, sha: str) -> dict[str, Any]:
        items = [
            {"path": p, "mode": m, "type": "commit" if m == "160000" else "blob", "sha": s}
            for p, (m, s) in sorted(self.trees[sha].items())
        ]
        return {"sha": sha, "url": self._api(f"/git/trees/{sha}"), "tree": items, "truncated": False}

    def _ref_json(self, ref: str) -> dict[str, Any]:
        return {"ref": f"refs/{ref}", "url": self._api(f"/git/refs/{ref}"), "object": {"sha": self.refs[ref]}}

    def dispatch(self, req: Request) -> tuple[int, Any, dict[str, str]]:
        with self.lock:
            self.requests.append(req)
            for failure in self.failures:
                if failure.times > 0 and failure.method == req.method and re.search(failure.pattern, req.path):
                    failure.times -= 1
                    if failure.after:
                        self._answer(req)
                    return failure.status, {"message": failure.message}, failure.headers
            return self._answer(req)

    def _answer(self, req: Request) -> tuple[int, Any, dict[str, str]]:
        login, kind = self.identity(req.authorization)
        if req.path == "/user" and req.method == "GET":
            if kind == "app":
                return 403, {"message": "Resource not accessible by integration"}, {}
            return 200, _user(login, kind), {}
        if req.path == "/graphql" and req.method == "POST":
            return self._graphql(str((req.body or {}).get("query", "")), (req.body or {}).get("variables") or {}, login)
        if not req.path.startswith(self.repo_path):
            return 404, {"message": "Not Found"}, {}
        try:
            return self._route(req.method, req.path[len(self.repo_path) :], req)
        except KeyError:
            return 404, {"message": "Not Found"}, {}
        except Exception as exc:  # a bug in the fake: make it loud, not a dropped connection
            return 500, {"message": f"fake server bug: {exc!r}"}, {}

    def _route(self, method: str, path: str, req: Request) -> tuple[int, Any, dict[str, str]]:
        body = req.body or {}
        if method == "GET" and path == "":
            full = f"{self.owner}/{self.name}"
            return 200, {"full_name": full, "default_branch": self.default_branch, "url": self._api("")}, {}
        author = _user(*self.identity(req.authorization))
        if (m := re.fullmatch(r"/actions/runs/(\d+)", path)) and method == "GET":
            run = self.runs[int(m.group(1))]
            head = run.get("head_repository")
            return (
                200,
                {
                    "id": int(m.group(1)),
                    "event": run["event"],
                    "repository": {"full_name": f"{self.owner}/{self.name}"},
                    "head_repository": {"full_name": head} if head else None,
                    "url": self._api(f"/actions/runs/{m.group(1)}"),
                },
                {},
            )
        if path == "/issues":
            if method == "POST":
                return 201, self._issue_json(self._new_issue(body, author)), {}
            newest = sorted(self.issues.values(), key=lambda i: -i["number"])
            return 200, [self._issue_json(i) for i in newest], {}
        if m := re.fullmatch(r"/issues/(\d+)", path):
            issue = self.issues[int(m.group(1))]
            if method == "PATCH":
                issue.update({k: v for k, v in body.items() if k in ("state", "state_reason", "title", "body")})
            return 200, self._issue_json(issue), {}  # GET: a pull request answers here too, as on GitHub
        if m := re.fullmatch(r"/issues/(\d+)/comments", path):
            number = int(m.group(1))
            if number not in self.issues:
                raise KeyError(number)
            if method == "POST":
                return 201, self._new_comment(number, body["body"], author), {}
            return 200, self.comments.get(number, []), {}
        if (m := re.fullmatch(r"/issues/(\d+)/labels", path)) and method == "POST":
            issue = self.issues[int(m.group(1))]
            names = {label["name"] for label in issue["labels"]}
            wanted = body["labels"] if isinstance(body, dict) else body  # GitHub takes both forms
            issue["labels"] += [{"name": n} for n in wanted if n not in names]
            return 200, issue["labels"], {}
        if (m := re.fullmatch(r"/issues/(\d+)/labels/(.+)", path)) and method == "DELETE":
            issue = self.issues[int(m.group(1))]
            if m.group(2) not in {label["name"] for label in issue["labels"]}:
                return 404, {"message": "Label does not exist"}, {}
            issue["labels"] = [label for label in issue["labels"] if label["name"] != m.group(2)]
            return 200, issue["labels"], {}
        if m := re.fullmatch(r"/git/commits/([0-9a-f]+)", path):
            return 200, self._commit_json(m.group(1)), {}
        if path == "/git/commits" and method == "POST":
            commit = {"tree": body["tree"], "parents": body["parents"], "message": body["message"]}
            sha = _sha([commit, len(self.commits)])
            self.commits[sha] = commit
            return 201, self._commit_json(sha), {}
        if m := re.fullmatch(r"/git/trees/([0-9a-f]+)", path):
            return 200, self._tree_json(m.group(1)), {}
        if path == "/git/trees" and method == "POST":
            entries = dict(self.trees[body["base_tree"]]) if body.get("base_tree") else {}
            for item in body["tree"]:
                if item.get("sha") is None:
                    entries.pop(item["path"], None)
                else:
                    entries[item["path"]] = (item["mode"], item["sha"])
            sha = _sha(entries)
            self.trees[sha] = entries
            return 201, self._tree_json(sha), {}
        if m := re.fullmatch(r"/git/blobs/([0-9a-f]+)", path):
            data = self.blobs[m.group(1)]
            encoded = base64.encodebytes(data).decode()
            return 200, {"sha": m.group(1), "content": encoded, "encoding": "base64", "size": len(data)}, {}
        if path == "/git/blobs" and method == "POST":
            data = base64.b64decode(body["content"]) if body["encoding"] == "base64" else body["content"].encode()
            sha = git_blob_sha(data)
            self.blobs[sha] = data
            return 201, {"sha": sha, "url": self._api(f"/git/blobs/{sha}")}, {}
        if path == "/git/refs" and method == "POST":
            ref = body["ref"].removeprefix("refs/")
            if ref in self.refs:
                return 422, {"message": "Reference already exists"}, {}
            self.refs[ref] = body["sha"]
            return 201, self._ref_json(ref), {}
        if (m := re.fullmatch(r"/git/ref/(.+)", path)) and method == "GET":
            return 200, self._ref_json(m.group(1)), {}  # KeyError (404) when missing
        if (m := re.fullmatch(r"/git/refs/(.+)", path)) and method == "PATCH":
            if m.group(1) not in self.refs:
                raise KeyError(m.group(1))
            parents = self.commits.get(body["sha"], {}).get("parents", [])
            if not body.get("force") and self.refs[m.group(1)] not in parents:
                return 422, {"message": "Update is not a fast forward"}, {}
            self.refs[m.group(1)] = body["sha"]
            return 200, self._ref_json(m.group(1)), {}
        if (m := re.fullmatch(r"/pulls/(\d+)/requested_reviewers", path)) and method == "POST":
            issue = self.issues[int(m.group(1))]
            if issue["user"]["login"] in body.get("reviewers", []):
                return 422, {"message": "Review cannot be requested from pull request author."}, {}
            wanted = issue.setdefault("_requested", {"users": [], "teams": []})
            wanted["users"] += [r for r in body.get("reviewers", []) if r not in wanted["users"]]
            wanted["teams"] += [t for t in body.get("team_reviewers", []) if t not in wanted["teams"]]
            return 201, self._pull_json(issue), {}
        if m := re.fullmatch(r"/pulls/(\d+)(/files|/reviews)?", path):
            return self._pull_route(method, int(m.group(1)), m.group(2) or "", body, author)
        if path == "/pulls":
            if method == "POST":
                if f"heads/{body['head']}" not in self.refs:
                    return 422, {"message": "Validation Failed", "errors": [{"field": "head"}]}, {}
                if any(i.get("_head") == body["head"] for i in self.issues.values()):
                    return 422, {"message": "A pull request already exists"}, {}
                issue = self._new_issue(body, author, pull=True)
                issue.update(_head=body["head"], _base=body["base"], _draft=body.get("draft", False))
                return 201, self._pull_json(issue), {}
            head = req.query.get("head", "").split(":")[-1]
            pulls = [self._pull_json(i) for i in self.issues.values() if "_head" in i and i["_head"] == head]
            return 200, pulls, {}
        return 404, {"message": "Not Found"}, {}

    # -- GraphQL: the few operations the kinds use, each recognised by its field

    def _comment_by_node(self, node_id: str) -> dict[str, Any] | None:
        for comments in self.comments.values():
            for comment in comments:
                if comment["node_id"] == node_id:
                    return comment
        return None

    def _graphql(self, query: str, variables: dict[str, Any], login: str) -> tuple[int, Any, dict[str, str]]:
        self.graphql.append((query, variables))
        full = f"{self.owner}/{self.name}"
        if "viewer" in query:
            return 200, {"data": {"viewer": {"login": login}}}, {}
        if "minimizeComment" in query:
            comment = self._comment_by_node(variables["id"])
            if comment is None:
                return 200, {"errors": [{"type": "NOT_FOUND", "message": "Could not resolve to a node"}]}, {}
            comment.update(_minimized=variables["classifier"])
            return 200, {"data": {"minimizeComment": {"minimizedComment": {"isMinimized": True}}}}, {}
        if "node(id:" in query:
            comment = self._comment_by_node(variables["id"])
            if comment is None:
                return 200, {"data": {"node": None}}, {}
            node = {
                "__typename": "IssueComment",
                "isMinimized": "_minimized" in comment,
                "minimizedReason": comment.get("_minimized"),
                "url": comment["html_url"],
                "repository": {"nameWithOwner": comment.get("_repository", full)},
            }
            return 200, {"data": {"node": node}}, {}
        if "createDiscussion" in query:
            if variables.get("categoryId") not in self.categories:
                return 200, {"errors": [{"message": "Could not resolve to a DiscussionCategory"}]}, {}
            number = len(self.discussions) + 1
            discussion = {
                "number": number,
                "title": variables["title"],
                "body": variables["body"],
                "url": f"https://github.com/{full}/discussions/{number}",
                "author": {"login": login},
                "category": {"id": variables["categoryId"]},
            }
            self.discussions.append(discussion)
            return 200, {"data": {"createDiscussion": {"discussion": discussion}}}, {}
        if "discussionCategories" in query or "discussions(" in query:
            repo = {
                "id": "R_fake",
                "discussionCategories": {
                    "nodes": [{"id": k, "name": v, "slug": v.lower()} for k, v in self.categories.items()]
                },
                "discussions": {"nodes": list(reversed(self.discussions))},
            }
            return 200, {"data": {"repository": repo}}, {}
        return 200, {"errors": [{"message": "this fake does not answer that query"}]}, {}

    # -- pull requests and their reviews, checked as GitHub checks them

    def _pull_route(
        self, method: str, number: int, sub: str, body: Any, author: dict[str, str]
    ) -> tuple[int, Any, dict[str, str]]:
        issue = self.issues[number]
        if "_head" not in issue:
            raise KeyError(number)
        if method == "GET" and sub == "":
            return 200, self._pull_json(issue), {}
        if method == "PATCH" and sub == "":
            issue.update({k: v for k, v in body.items() if k in ("state", "title", "body")})
            return 200, self._pull_json(issue), {}
        if method == "GET" and sub == "/files":
            return 200, issue.get("_files", []), {}
        if method == "GET" and sub == "/reviews":
            return 200, self.reviews.get(number, []), {}
        if method == "POST" and sub == "/reviews":
            return self._new_review(issue, body, author)
        return 404, {"message": "Not Found"}, {}

    def _new_review(self, issue: dict[str, Any], body: dict[str, Any], author: dict[str, str]) -> Any:
        event = body.get("event", "PENDING")
        if body.get("commit_id") != issue["_head_sha"]:
            return 422, {"message": "Unprocessable Entity", "errors": ["commit_id is not part of the pull request"]}, {}
        if event in ("APPROVE", "REQUEST_CHANGES") and author["login"] == issue["user"]["login"]:
            verb = "approve" if event == "APPROVE" else "request changes on"
            return 422, {"message": "Unprocessable Entity", "errors": [f"Can not {verb} your own pull request"]}, {}
        if event == "APPROVE" and author["login"] == "github-actions[bot]" and not self.actions_can_approve:
            return 422, {"message": "GitHub Actions is not permitted to approve pull requests."}, {}
        comments = body.get("comments") or []
        if event == "COMMENT" and not body.get("body") and not comments:
            return 422, {"message": "Unprocessable Entity", "errors": ["Review body is required"]}, {}
        files = {f["filename"]: f for f in issue.get("_files", [])}
        for comment in comments:
            if not _on_diff(files.get(comment["path"]), comment):
                error = "Pull request review thread line must be part of the diff"
                return 422, {"message": "Unprocessable Entity", "errors": [error]}, {}
        self._next_id += 1
        state = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "COMMENT": "COMMENTED"}[event]
        review = {
            "id": self._next_id,
            "body": body.get("body", ""),
            "state": state,
            "user": author,
            "commit_id": body["commit_id"],
            "html_url": f"{issue['html_url']}#pullrequestreview-{self._next_id}",
            "pull_request_url": self._api(f"/pulls/{issue['number']}"),
            "_comments": comments,
        }
        self.reviews.setdefault(issue["number"], []).append(review)
        return 200, {k: v for k, v in review.items() if not k.startswith("_")}, {}


def _on_diff(file: dict[str, Any] | None, comment: dict[str, Any]) -> bool:
    """GitHub's rule: every line of start_line..line on its side lies in one hunk of the patch."""
    if file is None or not file.get("patch"):
        return False
    hunks: list[dict[str, set[int]]] = []
    old = new = 0
    for raw in file["patch"].split("\n"):
        if m := re.match(r"@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@", raw):
            hunks.append({"LEFT": set(), "RIGHT": set()})
            old, new = int(m.group(1)), int(m.group(2))
        elif hunks and raw[:1] == "+":
            hunks[-1]["RIGHT"].add(new)
            new += 1
        elif hunks and raw[:1] == "-":
            hunks[-1]["LEFT"].add(old)
            old += 1
        elif hunks and raw[:1] == " ":
            hunks[-1]["LEFT"].add(old)
            hunks[-1]["RIGHT"].add(new)
            old, new = old + 1, new + 1
    side = comment.get("side", "RIGHT")
    if comment.get("start_line") is not None and comment.get("start_side", side) != side:
        return False
    wanted = set(range(comment.get("start_line") or comment["line"], comment["line"] + 1))
    return any(wanted <= hunk[side] for hunk in hunks)
