"""A recording as a hostile one would be made: its tool calls try to write outside the workspace,
its config names code to import and files to read outside it, its session id names another
folder, its lines are cut, huge, deeply nested, not UTF-8, or hold numbers JSON has no place for.
None of it writes outside the replay's workspace and output folder or runs unconfined; every
refusal is exit 2 with the file and the reason, never a traceback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import base_env, run_cli, write_run_files
from tests.replay.rig import PROMPT, Recorded, lines, make_workspace, record_faux, refix_manifest, replay
from tests.replay.test_unusable_records import refused


def record_calls(tmp: Path, *calls: tuple[str, dict[str, Any]], config: dict[str, Any] | None = None) -> Path:
    """A faux run (no sandbox configured: ``full``) whose first turn makes ``calls``; its records."""
    workspace = make_workspace(tmp / "ws")
    turns = [{"text": "Working.", "tool_calls": [{"name": n, "arguments": a} for n, a in calls]}, {"text": "Done."}]
    cfg, prompt = write_run_files(
        tmp, {"engine": {"id": "aw", "model": "faux/scripted"}, **(config or {})}, PROMPT, turns
    )
    run = run_cli(["--config", str(cfg), "--prompt", str(prompt), "--format", "jsonl"], base_env(tmp), cwd=workspace)
    assert run.returncode == 0, run.stderr
    return tmp / "out"


def sandbox_record(stderr: str) -> dict[str, Any]:
    [found] = [json.loads(s) for s in stderr.splitlines() if s.startswith('{"event": "sandbox"')]
    return found


@pytest.mark.parametrize(
    "call",
    [
        ("write", {"path": "{outside}/written.txt", "content": "escaped\n"}),
        ("write", {"path": "../outside/written.txt", "content": "escaped\n"}),
        ("bash", {"command": "echo escaped > {outside}/written.txt; cat {outside}/written.txt"}),
        ("bash", {"command": "cd .. && echo escaped > outside/written.txt; cat outside/written.txt"}),
    ],
    ids=["write-absolute", "write-relative", "bash-absolute", "bash-relative"],
)
def test_a_recorded_call_that_wrote_outside_the_workspace_is_confined_in_the_replay(
    tmp_path: Path, call: tuple[str, dict[str, str]]
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    name, arguments = call
    records = record_calls(tmp_path, (name, {k: v.format(outside=outside) for k, v in arguments.items()}))
    assert (outside / "written.txt").read_text() == "escaped\n", "the recorded run (sandbox full) wrote there"
    (outside / "written.txt").unlink()
    done = replay(tmp_path, records)
    assert not (outside / "written.txt").exists(), "the replay's call could not write outside its workspace"
    assert done.run.returncode == 1 and done.report["replay"] == "diverged", done.run.stderr
    assert done.report["divergence"]["turn"] == 1 and done.report["divergence"]["tool"] == name
    confined = sandbox_record(done.run.stderr)
    assert (confined["bash"], confined["files"], confined["enforced"]) == ("workspace-write", "workspace-write", True)


def test_the_replay_keeps_a_stricter_recorded_sandbox(tmp_path: Path) -> None:
    records = record_calls(
        tmp_path, ("bash", {"command": "cat notes.txt"}), config={"tools": {"bash": ["cat"]}, "harness": {}}
    )
    done = replay(tmp_path, records)
    assert done.report["replay"] == "same", done.run.stderr
    confined = sandbox_record(done.run.stderr)
    assert (confined["bash"], confined["bash_tcp"]) == ("workspace-write", False), "no TCP, whatever was recorded"


def test_a_recording_chooses_neither_the_job_s_variables_nor_its_network(tmp_path: Path) -> None:
    """A fork's recording named ``tools.pass-env: [DEPLOY_DSN]`` and ``sandbox-network: true``,
    and the replaying job handed its own ``DEPLOY_DSN`` to the replayed commands with TCP open:
    a config the job never wrote decided both (found by review). Neither reaches them now: the
    replayed command prints what the recorded one did, without the job's value."""
    command = 'echo "dsn=${DEPLOY_DSN:-none}"'
    config = {"tools": {"pass-env": ["DEPLOY_DSN"]}, "harness": {"sandbox-network": True}}
    records = record_calls(tmp_path, ("bash", {"command": command}), config=config)
    done = replay(tmp_path, records, DEPLOY_DSN="hunter2pass-internal-9f8e")
    assert "hunter2pass-internal-9f8e" not in done.run.stdout + done.run.stderr
    assert done.report["replay"] == "same", done.run.stderr[-2000:]
    assert sandbox_record(done.run.stderr)["bash_tcp"] is False


def test_a_kernel_that_cannot_confine_the_replay_refuses_it(tmp_path: Path) -> None:
    records = record_calls(tmp_path, ("bash", {"command": "cat notes.txt"}))
    done = replay(tmp_path, records, AW_SANDBOX_ABI_LIMIT="0")
    refused(done, "Landlock", "confines")
    assert not (tmp_path / "replay-ws" / "a.txt").exists()


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    return record_faux(tmp_path_factory.mktemp("faux-rec"))


@pytest.fixture
def copy(recorded: Recorded, tmp_path: Path) -> Path:
    return Path(shutil.copytree(recorded.records, tmp_path / "records"))


def rewrite_header(records: Path, **fields: Any) -> None:
    rows = lines(records / "replay.jsonl")
    for key, value in fields.items():
        if key == "harness":
            rows[0]["config"].setdefault("harness", {}).update(value)
        else:
            rows[0][key] = value
    (records / "replay.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    refix_manifest(records, "replay.jsonl")


EVIL = "from pathlib import Path\nPath({marker!r}).write_text('ran')\ndef setup(api):\n    pass\n"


@pytest.mark.parametrize("where", ["absolute", "relative", "beside-the-records"])
def test_an_extension_outside_the_workspace_is_never_imported(copy: Path, tmp_path: Path, where: str) -> None:
    marker = tmp_path / "imported.txt"
    evil = copy / "evil.py" if where == "beside-the-records" else tmp_path / "evil.py"
    evil.write_text(EVIL.format(marker=str(marker)))
    ref = {"absolute": str(evil), "relative": "../evil.py", "beside-the-records": "../records/evil.py"}[where]
    rewrite_header(copy, harness={"extensions": [ref]})
    message = refused(replay(tmp_path, copy), "harness.extensions", "leaves the workspace")
    assert ref[:40] in message
    assert not marker.exists(), "nothing the recording names is imported"


def test_an_extension_by_module_name_is_refused(copy: Path, tmp_path: Path) -> None:
    rewrite_header(copy, harness={"extensions": ["antigravity"]})
    refused(replay(tmp_path, copy), "antigravity", "never a module by its name")


def test_an_output_schema_file_outside_the_workspace_is_not_read(copy: Path, tmp_path: Path) -> None:
    rewrite_header(copy, harness={"output-schema": "/etc/passwd"}, config_dir="/")
    refused(replay(tmp_path, copy), "harness.output-schema", "/etc/passwd", "leaves the workspace")


def test_an_extension_in_the_workspace_still_loads(copy: Path, tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "replay-ws")
    (ws / "ext.py").write_text(
        f"from pathlib import Path\ndef setup(api):\n    Path({str(tmp_path / 'm')!r}).touch()\n"
    )
    rewrite_header(copy, harness={"extensions": ["./ext.py"]})
    done = replay(tmp_path, copy, workspace=ws)
    assert done.report["replay"] == "same", done.run.stderr
    assert (tmp_path / "m").exists()


@pytest.mark.parametrize("session_id", ["../../../../escaped", "/abs/escaped", ".hidden", "a/../../b"])
def test_the_recorded_session_id_never_names_another_output_folder(copy: Path, tmp_path: Path, session_id: str) -> None:
    rewrite_header(copy, session_id=session_id)
    ws = make_workspace(tmp_path / "replay-ws")
    temp = tmp_path / "temp"
    temp.mkdir()
    env = base_env(tmp_path, TMPDIR=str(temp))
    del env["AW_OUTPUT_DIR"]
    run = run_cli(["replay", str(copy), "--workspace", str(ws), "--format", "jsonl"], {**env, "AW_OUTPUT_DIR": ""}, ws)
    assert run.returncode == 0, run.stderr
    out = Path(run.result["output_dir"])
    assert out.parent == temp / "aw-replay" and out.name.replace("_", "").isalnum(), out
    assert not (tmp_path / "escaped").exists() and not Path("/abs/escaped").exists()


def spoil(records: Path, line: int, text: bytes) -> None:
    path = records / "replay.jsonl"
    rows = path.read_bytes().splitlines()
    rows[line - 1] = text
    path.write_bytes(b"\n".join(rows) + b"\n")
    refix_manifest(records, "replay.jsonl")


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (b"NaN", "NaN is not a number JSON allows"),
        (b"-Infinity", "-Infinity is not a number JSON allows"),
        (b"1e400", "beyond the numbers a float holds"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b"[" * 70 + b"]" * 70, "nested deeper than 64 levels"),
        (b'"\xff\xfe"', "not UTF-8"),
        (b'"' + b"a" * (33 * 2**20) + b'"', "longer than 32 MiB"),
    ],
    ids=["nan", "infinity", "1e400", "recursion", "depth", "utf8", "huge"],
)
def test_a_hostile_line_is_refused_naming_it(copy: Path, tmp_path: Path, value: bytes, reason: str) -> None:
    second = (copy / "replay.jsonl").read_bytes().splitlines()[1]
    spoil(copy, 2, b'{"x": ' + value + b", " + second[1:])
    where = "replay.jsonl" if reason == "not UTF-8" else "replay.jsonl:2"
    refused(replay(tmp_path, copy), where, reason)


def test_a_lone_surrogate_in_a_recorded_call_is_no_traceback(copy: Path, tmp_path: Path) -> None:
    rows = lines(copy / "replay.jsonl")
    [call] = [b for b in rows[1]["message"]["content"] if b.get("type") == "toolCall"]
    call["arguments"]["content"] = "one\ud800\n"
    (copy / "replay.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    refix_manifest(copy, "replay.jsonl")
    done = replay(tmp_path, copy)
    assert "Traceback" not in done.run.stderr, done.run.stderr[-3000:]
    assert done.run.returncode == 1 and done.report["replay"] == "diverged", done.run.stderr
    assert done.report["divergence"]["turn"] == 1


def test_terminal_escapes_in_a_recorded_result_reach_no_terminal(copy: Path, tmp_path: Path) -> None:
    path = copy / "session.jsonl"
    path.write_text(path.read_text().replace("Successfully", "\\u001b]0;pwned\\u0007\\u001b[2JSuccessfully", 1))
    refix_manifest(copy, "session.jsonl")
    done = replay(tmp_path, copy)
    assert done.report["replay"] == "diverged", done.run.stderr
    assert "\x1b" in done.report["divergence"]["diff"], "the report keeps the recorded text (JSON escapes it)"
    assert "\x1b" not in done.run.stderr and "\x07" not in done.run.stderr
    assert "-\\x1b]0;pwned\\x07\\x1b[2JSuccessfully" in done.run.stderr, "the diff is shown, its controls escaped"


def test_a_recorded_config_the_harness_would_refuse_names_its_field(copy: Path, tmp_path: Path) -> None:
    rewrite_header(copy, harness={"budget": {"max-turns": -1}, "sandbox": "nowhere"})
    refused(replay(tmp_path, copy), "the recorded config", "harness.budget.max-turns")
