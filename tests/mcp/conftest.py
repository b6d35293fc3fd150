"""The security tests' fixtures (a real unprivileged user, a shared temp dir) for the MCP tests."""

from tests.security.conftest import shared_tmp, tool_user, user_dir

__all__ = ["shared_tmp", "tool_user", "user_dir"]
