"""Safe outputs: the agent proposes GitHub writes as records; a separate job applies them.

Agent side (no GitHub token needed): ``safe_output_tools`` gives the agent one tool per
configured kind; ``aw-harness safe-output`` writes the same records from bash. Both append to
``safe-outputs.jsonl`` in the output dir, in gh-aw's record shape, and keep a copy of the config
and any pull-request patch beside it.

Each kind (create an issue, comment, ...) is one module in ``kinds/``, registered in
``kinds.KINDS``; the stages here and in ``apply_outputs/`` are generic and look kinds up there.

Apply side (write token): ``aw-harness apply-safe-outputs PATH`` (``aw_action/apply_outputs/``,
an entry-level package) re-checks every record against the config, sanitises bodies and applies
them with PyGithub, idempotently.

Layering: this package imports only ``agent``, ``ai`` and ``run`` (the redactor); nothing here
imports extensions, the harness, github/ or the entry points.
"""

from __future__ import annotations

from aw_action.run.mode import gh_aw_mode
from aw_action.safe_outputs.config import (
    CONFIG_FILE,
    SafeOutputsConfig,
    SafeOutputsConfigError,
    load_config_file,
    parse_safe_outputs,
)
from aw_action.safe_outputs.records import RECORDS_FILE, read_records
from aw_action.safe_outputs.tools import safe_output_tools

__all__ = [
    "CONFIG_FILE",
    "RECORDS_FILE",
    "SafeOutputsConfig",
    "SafeOutputsConfigError",
    "gh_aw_mode",
    "load_config_file",
    "parse_safe_outputs",
    "read_records",
    "safe_output_tools",
]
