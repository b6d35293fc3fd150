"""``python -m aw_action`` is ``aw-harness``."""

from aw_action.cli import main

raise SystemExit(main(guard_exit=True))
