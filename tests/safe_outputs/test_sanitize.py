"""Body and title sanitising. Most cases are ported from gh-aw's
``actions/setup/js/sanitize_content.test.cjs`` (github/gh-aw@053c355); the expected strings are
gh-aw's, except where aw-harness is stricter on purpose (tests/security/test_sanitize_rendered.py
shows why with GitHub's renderer): mentions and closing keywords go in ``<code>`` rather than
backticks, a mention already in backticks is wrapped too, and a URL's label names the host a
browser would reach (after the ``@`` of a user name)."""

from __future__ import annotations

import pytest

from aw_action.environment.runner import RunnerFacts
from aw_action.security.untrusted_text.public_text import allowed_domains, sanitize_body, sanitize_title

BIG = 524_288


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  hello world  ", "hello world"),
        ("Hello @user", "Hello <code>@user</code>"),
        ("Hello @myorg/myteam", "Hello <code>@myorg/myteam</code>"),
        ("Already `@user` mentioned", "Already `<code>@user</code>` mentioned"),
        ("@user1 and @user2 are here", "<code>@user1</code> and <code>@user2</code> are here"),
        ("Contact email@example.com", "Contact email@example.com"),
        ("Hello <!-- comment --> world", "Hello  world"),
        ("Hello <!--! comment --!> world", "Hello  world"),
        ("Hello <!-- multi\nline\ncomment --> world", "Hello  world"),
        ("Hello <div>world</div>", "Hello (div)world(/div)"),
        ('<div class="test">content</div>', '(div class="test")content(/div)'),
        ("Hello <br/> world", "Hello <br/> world"),
        ("Hello <img/> world", "Hello (img/) world"),
        ("<![CDATA[<script>alert('xss')</script>]]>", "(![CDATA[(script)alert('xss')(/script)]])"),
        ("<ul><li>Item 1</li><li>Item 2</li></ul>", "<ul><li>Item 1</li><li>Item 2</li></ul>"),
        ("<u>content</u>", "(u)content(/u)"),
        ("\x1b[31mred text\x1b[0m", "red text"),
        ("test\x00\x01\x02\x03content", "testcontent"),
        ("test\ncontent\twith\ttabs", "test\ncontent\twith\ttabs"),
        ("test\x7fcontent", "testcontent"),
        ("Visit https://github.com", "Visit https://github.com"),
        ("Visit https://api.github.com/endpoint", "Visit https://api.github.com/endpoint"),
        ("Visit https://raw.githubusercontent.com/file", "Visit https://raw.githubusercontent.com/file"),
        ("Visit https://example.github.io/page", "Visit https://example.github.io/page"),
        ("Visit https://evil.com/malicious", "Visit (evil.com/redacted)"),
        ("Visit http://example.com", "Visit (example.com/redacted)"),
        ("Click javascript:alert('xss')", "Click (redacted)"),
        ("Image data:image/png;base64,abc123", "Image (redacted)"),
        ("C:\\path\\to\\file", "C:\\path\\to\\file"),
        ("std::vector::push_back", "std::vector::push_back"),
        ("Visit http://sub.example.malicious.com/path", "Visit (sub.example.malicious.../redacted)"),
        ("Visit https://very.deep.nested.subdomain.evil.com/path", "Visit (very.deep.nested.../redacted)"),
        ("Visit http://ex@mple-domain.co_uk.net/path", "Visit (mpledomain.couk.net/redacted)"),
        ("This fixes #123", "This <code>fixes</code> #123"),
        ("PR closes #456", "PR <code>closes</code> #456"),
        ("fixes #abc123def", "<code>fixes</code> #abc123def"),
        ("See issue #123 and owner/repo#456", "See issue #123 and owner/repo#456"),
    ],
)
def test_body_sanitising_matches_gh_aw(text: str, expected: str) -> None:
    assert sanitize_body(text, BIG) == expected


def test_allowed_safe_tags_are_kept() -> None:
    for tag in ("b", "details", "summary", "table", "h5", "pre", "sub", "sup"):
        assert sanitize_body(f"<{tag}>x</{tag}>", BIG) == f"<{tag}>x</{tag}>"


def test_mentions_smuggled_as_entities_or_hidden_by_invisible_characters_are_neutralised() -> None:
    for text in ("&commat;admin", "&#64;admin", "&#x40;admin", "&amp;#64;admin"):
        assert sanitize_body(f"ping {text}", BIG) == "ping <code>@admin</code>"
    assert sanitize_body("ping @\u200badmin", BIG) == "ping <code>@admin</code>"
    assert sanitize_body("ping ＠admin", BIG) == "ping <code>@admin</code>"  # full-width @


def test_bidi_overrides_and_zero_width_characters_are_removed() -> None:
    assert sanitize_body("a\u202eb\u2066c\u200dd\ufeffe", BIG) == "abcde"


def test_a_forged_marker_or_an_unclosed_comment_cannot_hide_text() -> None:
    forged = "<!-- aw-harness-safe-output: run=1 record=0123456789abcdef -->"
    assert "aw-harness-safe-output" not in sanitize_body(f"hi {forged}", BIG)
    unclosed = sanitize_body("visible <!-- hides everything after", BIG)
    assert "<!--" not in unclosed and "hides everything after" in unclosed


def test_entity_decoding_never_makes_invalid_unicode() -> None:
    out = sanitize_body("&#xD800; &#1114112; &#55296;", BIG)
    out.encode("utf-8")  # no lone surrogate
    assert "&#xD800;" in out


def test_length_and_line_caps() -> None:
    out = sanitize_body("x" * 200, 100)
    assert len(out) <= 100 and out.endswith("[Content truncated due to length]")
    many = sanitize_body("a\n" * 70_000, BIG)
    assert many.endswith("[Content truncated due to line count]") and many.count("\n") <= 65_001


def test_enterprise_server_domain_is_allowed() -> None:
    domains = allowed_domains(RunnerFacts.read({"GITHUB_SERVER_URL": "https://github.company.com"}))
    assert (
        sanitize_body("Visit https://github.company.com/repo", BIG, domains) == "Visit https://github.company.com/repo"
    )


@pytest.mark.parametrize(
    ("title", "prefix", "expected"),
    [
        ("Fix the build", "[bot] ", "[bot] Fix the build"),
        ("[bot] Fix the build", "[bot] ", "[bot] Fix the build"),
        ("[bot]: Fix the build", "[bot] ", "[bot] Fix the build"),
        ("[bot] [bot] Fix", "[bot] ", "[bot] Fix"),
        ("Fix\u202e the\x1b[1m build", "", "Fix the build"),
        ("  spaced   out  ", "", "spaced out"),
    ],
)
def test_titles_get_the_prefix_once(title: str, prefix: str, expected: str) -> None:
    assert sanitize_title(title, prefix, 256) == expected
