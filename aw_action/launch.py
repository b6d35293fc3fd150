"""The process entry: ``aw-harness`` (the console script) and ``python -m aw_action``.

The order is the contract: first the working directory leaves ``sys.path`` (nothing may be
imported from the checked-out workspace, not even the standard library's pure-Python modules),
then a stop signal is held (``run/stop_hold``) while the harness imports, then the command line
runs.
"""

from aw_action.security.confinement.safe_path import drop_unsafe_path

drop_unsafe_path()

from typing import NoReturn  # noqa: E402

from aw_action.run.stop_hold import hold  # noqa: E402


def entrypoint() -> NoReturn:
    hold()
    from aw_action.cli import main

    raise SystemExit(main(guard_exit=True))
