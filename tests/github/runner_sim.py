"""What the GitHub runner does with a step's output, re-implemented for tests.

- ``RunnerLog`` follows actions/runner ``ActionCommandManager.TryProcessCommand``: each line is
  parsed as a ``::cmd props::data`` command (after trimming leading space) or a legacy
  ``##[cmd props]data`` command found anywhere in the line; while ``stop-commands`` is active,
  only the resume token is acted on.
- ``parse_file_command`` follows ``FileCommandManager``'s ``NAME=VALUE`` / ``NAME<<DELIM`` parser.
"""

from __future__ import annotations

from dataclasses import dataclass, field

REGISTERED = frozenset(
    {
        "add-mask", "set-output", "save-state", "set-env", "add-path", "group", "endgroup", "warning",
        "error", "notice", "debug", "echo", "add-matcher", "remove-matcher", "stop-commands",
    }
)  # fmt: skip


def unescape_data(value: str) -> str:
    return value.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


def unescape_property(value: str) -> str:
    return unescape_data(value.replace("%3A", ":").replace("%2C", ","))


@dataclass
class Command:
    name: str
    properties: dict[str, str]
    data: str


def _split(info: str) -> tuple[str, dict[str, str]]:
    name, _, rest = info.partition(" ")
    props: dict[str, str] = {}
    for pair in rest.split(","):
        key, sep, value = pair.partition("=")
        if sep and key.strip():
            props[key.strip()] = unescape_property(value)
    return name, props


def parse_command(line: str, registered: set[str]) -> Command | None:
    text = line.lstrip()
    if text.startswith("::"):
        end = text.find("::", 2)
        if end >= 0:
            name, props = _split(text[2:end])
            if name.lower() in registered:
                return Command(name.lower(), props, unescape_data(text[end + 2 :]))
    start = line.find("##[")
    if start >= 0:
        close = line.find("]", start)
        if close >= 0:
            name, props = _split(line[start + 3 : close])
            if name.lower() in registered:
                return Command(name.lower(), props, unescape_data(line[close + 1 :]))
    return None


@dataclass
class RunnerLog:
    processed: list[Command] = field(default_factory=list)
    registered: set[str] = field(default_factory=lambda: set(REGISTERED))
    stop_token: str | None = None
    lines_while_stopped: list[str] = field(default_factory=list)

    def feed(self, line: str) -> None:
        if self.stop_token is not None:
            self.lines_while_stopped.append(line)
        command = parse_command(line, self.registered)
        if command is None:
            return
        if self.stop_token is not None:
            if command.name == self.stop_token.lower():
                self.registered.discard(self.stop_token.lower())
                self.stop_token = None
            return
        if command.name == "stop-commands":
            assert command.data and command.data.lower() not in REGISTERED, "invalid stop token"
            self.stop_token = command.data
            self.registered.add(command.data.lower())
            return
        self.processed.append(command)

    def named(self, name: str) -> list[Command]:
        return [c for c in self.processed if c.name == name]


def simulate(output: str) -> RunnerLog:
    log = RunnerLog()
    for line in output.split("\n"):
        log.feed(line)
    return log


def parse_file_command(text: str) -> dict[str, str]:
    """``GITHUB_OUTPUT`` as the runner reads it (Linux: lines split on ``\\n`` only)."""
    lines = text.split("\n")
    values: dict[str, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        eq, heredoc = line.find("="), line.find("<<")
        if eq >= 0 and (heredoc < 0 or eq < heredoc):
            values[line[:eq]] = line[eq + 1 :]
            continue
        if heredoc < 0:
            raise ValueError(f"Invalid format '{line}'")
        name, delimiter = line[:heredoc], line[heredoc + 2 :]
        body: list[str] = []
        while True:
            if i >= len(lines):
                raise ValueError(f"Invalid value. Matching delimiter not found '{delimiter}'")
            current = lines[i]
            i += 1
            if current == delimiter:
                if i >= len(lines):
                    raise ValueError("Invalid value. EOF marker missing new line.")
                break
            body.append(current)
        values[name] = "\n".join(body)
    return values
