"""Loading prompt.txt, resolving the config's imports, and assembling the first message.

Every failure raises ``InvocationError`` with one line that names the file.
"""

from __future__ import annotations

from pathlib import Path

from aw_action.exits import InvocationError
from aw_action.lazy_dataclass import dataclass
from aw_action.run.config import RunConfig
from aw_action.run.input_files import InputFileProblem, read_input_text, read_text_or_problem


def load_prompt(path: Path) -> str:
    text = read_input_text(path, "prompt file")
    if not text.strip():
        raise InvocationError(f"prompt file is empty: {path}")
    return text


@dataclass(frozen=True)
class ResolvedImport:
    path: str
    content: str


def resolve_imports(config: RunConfig, workspace: Path) -> list[ResolvedImport]:
    """Imports in declared order. Inline content wins; a path is a repository path, read
    relative to the workspace: ``GITHUB_WORKSPACE`` when set, else the current directory (the
    caller's ``Harness.workspace``), never config.json's folder (the compiler writes repository
    paths, and ``examples/pr-review/config.json`` names ``examples/pr-review/checklist.md``)."""
    base = workspace
    out: list[ResolvedImport] = []
    for i, entry in enumerate(config.imports):
        path, content = (entry, None) if isinstance(entry, str) else (entry.path, entry.content)
        if content is not None:
            out.append(ResolvedImport(path, content))
            continue
        if not path.strip() or "\x00" in path:
            raise InvocationError(f"imports[{i}]: the path is empty or holds a NUL character: {path!r}")
        try:
            out.append(ResolvedImport(path, read_text_or_problem((base / path).resolve())))
        except InputFileProblem as exc:
            shown = path if path.isprintable() else repr(path)  # the error stays one line
            raise InvocationError(f"imports[{i}]: {shown}: {exc} (looked in {base})") from None
    return out


def import_block(item: ResolvedImport) -> str:
    """An import as it appears in the first message (gh-aw's TS harness format)."""
    return f"<!-- import: {item.path} -->\n{item.content.rstrip()}\n<!-- /import: {item.path} -->"


def assemble_prompt(imports: list[ResolvedImport], prompt: str) -> str:
    """Imports in order, then the prompt body: one atomic first message (spec §6.3)."""
    return "\n\n".join([*(import_block(i) for i in imports), prompt])
