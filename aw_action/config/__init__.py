"""The run's config, resolved once for every entry point (``resolve.resolve_config``).

What belongs here: reading config.json (``document``), putting an entry point's overrides over
it, what the environment adds (``environment``, with gh-aw's limits read in ``gh_aw_limits``),
and resolving the model against the catalog. What does not: the config's typed shape
(``run/config.py``), the budget table (``run/budget_kinds.py``), and how an entry point gathers
its overrides (its own module: ``github/plan.py``, ``ghaw/invocation.py``, ``workflow_cli.py``).
"""

from aw_action.config.document import ConfigError
from aw_action.config.resolve import ConfigSources, Override, ResolvedConfig, UnknownModel, resolve_config

__all__ = ["ConfigError", "ConfigSources", "Override", "ResolvedConfig", "UnknownModel", "resolve_config"]
