"""``python -m aw_action`` is ``aw-harness``."""

from aw_action.security.safe_path import drop_unsafe_path

drop_unsafe_path()  # before any other import: nothing may come from the checked-out workspace

from aw_action.cli import main  # noqa: E402

raise SystemExit(main(guard_exit=True))
