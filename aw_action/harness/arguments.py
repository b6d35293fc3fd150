"""The command-line parser every entry point uses (``aw-harness``, ``aw-harness workflow``,
``aw-harness gh-aw``).

Why not argparse's own: its errors are multi-line usage text and exit 2 with nothing on stdout.
Here bad arguments are an invocation error like any other: one line on stderr (control
characters escaped, so an argument holding a newline cannot split it), the result object on
stdout, exit 2. ``--help`` still prints argparse's help and exits 0.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, NoReturn

from aw_action.ai.inert_line import one_line
from aw_action.exits import InvocationError


class OneLineParser(argparse.ArgumentParser):
    """``usage_line``: the short usage appended to every error (sub-parsers inherit it)."""

    def __init__(self, *args: Any, usage_line: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.usage_line = usage_line

    def add_subcommands(self, **kwargs: Any) -> argparse._SubParsersAction[OneLineParser]:
        """Sub-parsers of the same kind, with the same usage line."""
        usage_line = self.usage_line

        class Sub(OneLineParser):
            def __init__(self, *a: Any, **kw: Any) -> None:
                super().__init__(*a, usage_line=usage_line, **kw)

        return self.add_subparsers(parser_class=Sub, **kwargs)

    def error(self, message: str) -> NoReturn:
        line = f"{one_line(message)} (usage: {self.usage_line or self.prog})"
        sys.stderr.write(f"{self.prog}: error: {line}\n")
        # when used, not at start (tests/cli/test_first_request_imports.py)
        from aw_action.run.result import RunResult

        result = RunResult.invocation_error(InvocationError(line), "unknown").to_json()
        sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
        sys.stdout.flush()
        raise SystemExit(2)
