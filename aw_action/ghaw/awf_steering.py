"""Whether AWF's api-proxy steers on tokens and credits, so the harness sends no such notices itself.

With token steering on, the api-proxy injects ``[AWF TOKEN WARNING]`` / ``[AWF AI CREDIT
WARNING]`` notices into the requests it forwards (gh-aw-firewall ``body-transform.js``
``injectSteeringMessage``); the harness's own budget ladders would reach the model as a second
set. The switch is ``apiProxy.enableTokenSteering`` in the AWF config, which AWF hands the
api-proxy sidecar as ``AWF_ENABLE_TOKEN_STEERING=true`` (gh-aw-firewall @f550957
``src/services/api-proxy-env-config.ts``); gh-aw turns it on whenever a credit budget is active,
which is the default (``pkg/workflow/awf_config_build.go``). The agent's container does not get
that variable, but the compiled step writes the config to ``${RUNNER_TEMP}/gh-aw/awf-config.json``
and mounts ``${RUNNER_TEMP}/gh-aw`` read-only into the sandbox. So, in gh-aw mode only:

1. ``AWF_ENABLE_TOKEN_STEERING`` when set (a workflow may forward it): on when ``true``, as AWF
   reads it; any other value is off;
2. else the AWF config, the first that exists of ``GH_AW_AWF_CONFIG_PATH`` (gh-aw's own harness
   variable), ``${RUNNER_TEMP}/gh-aw/awf-config.json`` and ``/tmp/gh-aw/awf-config.json``: on
   when ``apiProxy.enableTokenSteering`` is ``true``;
3. else off: the harness steers on its own budgets.

An unreadable or malformed config counts as off and is reported (``problem``): doubled notices
are a nuisance, missing ones would cut the agent off without warning. Time steering is not
affected: AWF's time notices need ``AWF_AGENT_TIMEOUT_MINUTES``, which gh-aw sets only for its
cloud-hypervisor runtime, and the harness's deadline is its own.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from aw_action.environment.runner import RunnerFacts
from aw_action.lazy_dataclass import dataclass
from aw_action.run.mode import gh_aw_mode

FLAG_ENV = "AWF_ENABLE_TOKEN_STEERING"
CONFIG_PATH_ENV = "GH_AW_AWF_CONFIG_PATH"
DEFAULT_CONFIG = Path("/tmp/gh-aw/awf-config.json")
MAX_CONFIG_BYTES = 1024 * 1024


@dataclass(frozen=True)
class AwfSteering:
    tokens: bool
    """AWF sends the token and credit notices: the harness sends none of its own."""
    source: str | None = None
    """What decided it: the variable or the config file's path."""
    problem: str | None = None


def config_candidates(env: Mapping[str, str], runner: RunnerFacts) -> list[Path]:
    named = env.get(CONFIG_PATH_ENV, "").strip()
    runner_temp = runner.runner_temp
    found = [Path(named)] if named else []
    if runner_temp:
        found.append(Path(runner_temp) / "gh-aw" / "awf-config.json")
    return [*found, DEFAULT_CONFIG]


def _from_config(path: Path) -> AwfSteering:
    try:
        with path.open("rb") as fh:
            raw = fh.read(MAX_CONFIG_BYTES + 1)
        if len(raw) > MAX_CONFIG_BYTES:
            raise ValueError(f"larger than {MAX_CONFIG_BYTES} bytes")
        data = json.loads(raw.decode("utf-8"))
    except (OSError, ValueError) as exc:
        return AwfSteering(False, str(path), f"{path}: unreadable AWF config ({exc}); the harness steers on its own")
    proxy = data.get("apiProxy") if isinstance(data, dict) else None
    on = isinstance(proxy, dict) and proxy.get("enableTokenSteering") is True
    return AwfSteering(on, str(path))


def awf_steering(env: Mapping[str, str], runner: RunnerFacts | None = None) -> AwfSteering:
    """See the module docstring; never raises. ``runner``: the run's record of the runner's facts
    (read from ``env`` when not given)."""
    if not gh_aw_mode(env):
        return AwfSteering(False)
    flag = env.get(FLAG_ENV)
    if flag is not None and flag.strip():
        return AwfSteering(flag.strip() == "true", FLAG_ENV)
    for path in config_candidates(env, runner or RunnerFacts.read(env)):
        if path.is_file():
            return _from_config(path)
    return AwfSteering(False)
