"""Which models a run may switch to: the session's ``resolve_provider`` (seed 001's ``set_model``).

- The model's provider must be registered: built from a credential in the environment
  (``ai/providers.py``) or by an extension. Otherwise ``ModelUnavailableError`` with the same
  line a run with no credentials gets (``ai/credentials.missing_credentials``: the variables to
  set).
- Inside gh-aw (``run/mode.py``) a switch stays within what AWF's api-proxy routes: the provider
  must be one the proxy serves (``ProviderSet.awf_routes``: its placeholder credential or its
  ``/reflect`` endpoint) and, when ``/reflect`` lists that endpoint's models, the model must be
  one of them. The run's own model is not judged again (its resolution already warned).
"""

from __future__ import annotations

from collections.abc import Mapping

from aw_action.agent.session import ModelUnavailableError
from aw_action.ai.credentials import missing_credentials
from aw_action.ai.types import Model, Provider
from aw_action.extensions.registry import Registry
from aw_action.run.mode import gh_aw_mode


class ModelSwitch:
    """``resolve_provider`` for the run's session: the provider of a model, or a refusal."""

    def __init__(
        self, start: Model, registry: Registry, env: Mapping[str, str], awf_routes: Mapping[str, tuple[str, ...]]
    ) -> None:
        self._start = start
        self._registry = registry
        self._gh_aw = gh_aw_mode(env)
        self._routes = awf_routes

    def __call__(self, model: Model) -> Provider:
        provider = self._registry.provider(model.provider)
        if provider is None:
            raise ModelUnavailableError(str(missing_credentials(model, sorted(self._registry.providers))))
        if self._gh_aw and model != self._start:
            self._check_routed(model)
        return provider

    def _check_routed(self, model: Model) -> None:
        if model.provider not in self._routes:
            routed = ", ".join(sorted(self._routes)) or "none"
            raise ModelUnavailableError(
                f"model {model.ref}: inside gh-aw a run may switch only to a provider AWF's api-proxy "
                f"routes (routed: {routed}); add the provider to the workflow's engine to use it"
            )
        listed = self._routes[model.provider]
        if listed and model.id not in listed:
            shown = ", ".join(listed[:10])
            raise ModelUnavailableError(
                f"model {model.ref}: not among the models AWF's api-proxy lists for {model.provider}: {shown}"
            )
