"""The harness: assembles a run once (``context``) and runs an invocation with it (``invocation``)."""

from aw_action.harness.context import RunContext, assemble
from aw_action.harness.invocation import Harness

__all__ = ["Harness", "RunContext", "assemble"]
