"""``python -m aw_action`` is ``aw-harness``."""

from aw_action.launch import entrypoint

entrypoint()
