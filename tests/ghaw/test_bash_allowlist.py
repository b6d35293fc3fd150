"""The bash allow-list a gh-aw workflow can have with this engine (docs/gh-aw.md, "Bash allow-lists").

gh-aw hands a behavior-defined engine no ``tools.bash`` list, so the definition does not declare
``bash-command-allowlist``; the list goes to the harness in a config file named by the workflow's
``engine.env`` (``AW_HARNESS_CONFIG``), in gh-aw's own spellings, and the harness's bash policy
enforces it. Through the AWF rig, as gh-aw runs the engine.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.awf.forward_proxy import ForwardProxy
from tests.awf.proxy import AwfProxy, ProviderRoute
from tests.awf.rig import AgentStep
from tests.servers import anthropic as ant
from tests.servers.wire import WireServer


def test_a_config_file_allow_list_is_enforced_in_the_agent_step(tmp_path: Path) -> None:
    allowed, refused = "safeoutputs noop --message fine", "curl https://example.com"
    with WireServer() as upstream, ForwardProxy(deny=True) as squid:
        upstream.script(
            ant.stream_reply(tool_calls=[("bash", {"command": allowed})]),
            ant.stream_reply(tool_calls=[("bash", {"command": refused})]),
            ant.stream_reply(text="Done."),
        )
        route = ProviderRoute("anthropic", upstream, "sk-REAL-key-held-by-the-proxy-allow", models=None)
        with AwfProxy({"anthropic": route}) as proxy:
            step = AgentStep(tmp_path, proxy, "anthropic/claude-sonnet-4-6", squid.url)
            config = step.workspace / ".github" / "aw-harness.json"
            config.parent.mkdir()
            config.write_text(json.dumps({"tools": {"bash": ["safeoutputs"]}}))
            step.extra_env = {"AW_HARNESS_CONFIG": ".github/aw-harness.json"}
            run = step.run()
    assert run.returncode == 0, run.stderr[-3000:]
    assert [call["argv"][0] for call in step.stub_calls()] == ["noop"], "the allowed command ran"
    results = [
        block["content"][0]["text"]
        for message in upstream.requests[2].json["messages"]
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    assert results[-1].startswith("bash command refused by config.json tools.bash"), results[-1]
