"""``create_discussion``: propose a new discussion (``title``, ``body``, optional ``category``:
a name, slug or node ID; else the config's ``category``; else the repository's first). Discussions
exist only in GitHub's GraphQL API.

Applied once: one query reads the repository's node ID, its categories and its newest 100
discussions; a discussion carrying the record's marker that this job's login wrote is reported as
``exists``; else one ``createDiscussion`` mutation. A category the repository does not have fails
the record with the ones it has. The title gets the config's ``title-prefix`` once and is made
safe as every title is; the body is the sanitised body with the footer and the marker.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from pydantic import StrictInt, StrictStr, field_validator

from aw_action.safe_outputs import fields
from aw_action.safe_outputs.kinds import common, targeted, titled
from aw_action.safe_outputs.kinds.apply_api import Applied, ApplyError, GitHub, PlannedItem, Planning
from aw_action.safe_outputs.kinds.base import SafeOutputKind, Settings, max_field

CATEGORY_MAX_CHARS = 100
LOOKBACK = 100
REPOSITORY_QUERY = (
    "query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { id "
    "discussionCategories(first: 100) { nodes { id name slug } } "
    f"discussions(first: {LOOKBACK}, orderBy: {{field: CREATED_AT, direction: DESC}}) "
    "{ nodes { number url body author { login } } } } }"
)
CREATE = (
    "mutation($repositoryId: ID!, $categoryId: ID!, $title: String!, $body: String!) { "
    "createDiscussion(input: {repositoryId: $repositoryId, categoryId: $categoryId, title: $title, body: $body}) "
    "{ discussion { number url } } }"
)


class CreateDiscussion(targeted.RepoConfig):
    title_prefix: StrictStr = ""
    category: StrictStr | None = None
    """The category when the agent names none (name, slug or node ID); absent = the first."""
    max: StrictInt = max_field(1)

    @field_validator("title_prefix")
    @classmethod
    def _prefix(cls, value: str) -> str:
        if value.strip():
            fields.text(value, "", max_chars=titled.TITLE_PREFIX_MAX_CHARS, single_line=True)
        return value


class Kind(SafeOutputKind[CreateDiscussion]):
    name = "create_discussion"
    config_model: ClassVar[type[CreateDiscussion]] = CreateDiscussion
    fields = frozenset({"title", "body", "category"})

    def tool(self, cfg: CreateDiscussion, settings: Settings) -> tuple[str, dict[str, Any]]:
        category = common.string("Category name, slug or ID (must exist)", CATEGORY_MAX_CHARS)
        default = f'the category "{cfg.category}"' if cfg.category else "the repository's first category"
        return common.join(
            "Propose a new GitHub discussion (announcements, reports, questions; an issue is for work items).",
            f"Without a category it goes to {default}.",
            f"It is opened in {cfg.target_repo}." if cfg.target_repo else "",
            common.LATER,
            common.per_run(cfg.max, "discussion"),
            titled.prefix_note(cfg.title_prefix),
        ), common.object_schema({"title": common.TITLE, "body": common.BODY, "category": category}, ["title", "body"])

    def validate(self, args: Mapping[str, Any], cfg: CreateDiscussion) -> dict[str, Any]:
        record: dict[str, Any] = {"title": common.title(args), "body": common.body(args)}
        if args.get("category") is not None:
            record["category"] = fields.text(
                args["category"], "category", max_chars=CATEGORY_MAX_CHARS, single_line=True
            )
        return record

    def plan(
        self, item: PlannedItem, record: Mapping[str, Any], cfg: CreateDiscussion, planning: Planning
    ) -> PlannedItem:
        title = planning.title(record["title"], cfg.title_prefix)
        return replace(item, title=title, category=record.get("category") or cfg.category)

    def apply(self, item: PlannedItem, github: GitHub) -> Applied:
        owner, name = github.repository.split("/", 1)

        def attempt() -> Applied:
            repo = github.graphql(REPOSITORY_QUERY, {"owner": owner, "name": name}).get("repository")
            if not isinstance(repo, Mapping):
                raise ApplyError(f"cannot read {github.repository}'s discussions (are they turned on?)")
            for found in (repo.get("discussions") or {}).get("nodes") or []:
                author = str((found.get("author") or {}).get("login") or "")
                login = github.login
                if item.marker in str(found.get("body") or "") and login and author.lower() == login.lower():
                    return Applied("exists", found.get("url"), found.get("number"))
            category = _category(item.category, (repo.get("discussionCategories") or {}).get("nodes") or [])
            variables = {"repositoryId": repo["id"], "categoryId": category, "title": item.title, "body": item.body}
            made = github.graphql(CREATE, variables).get("createDiscussion") or {}
            discussion = made.get("discussion") or {}
            return Applied("created", discussion.get("url"), discussion.get("number"))

        return github.retry(attempt)


def _category(wanted: str | None, nodes: list[Mapping[str, Any]]) -> str:
    """The node ID of ``wanted`` (name or slug, any case, or ID), or of the first category."""
    if not nodes:
        raise ApplyError("the repository has no discussion categories (are discussions turned on?)")
    if wanted is None:
        return str(nodes[0]["id"])
    for node in nodes:
        if wanted == node.get("id") or wanted.lower() in (str(node.get("name")).lower(), str(node.get("slug")).lower()):
            return str(node["id"])
    names = ", ".join(str(n.get("name")) for n in nodes)
    raise ApplyError(f"discussion category {wanted!r} does not exist (the repository has: {names})")


KIND = Kind()
