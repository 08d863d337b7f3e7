"""``python -m flowjob.board_plugin [TENSORBOARD FLAGS]``: TensorBoard with flowjob's plugin,
whether or not the ``tensorboard_plugins`` entry point is installed (``flowjob board`` runs
this)."""

import sys

from absl import app
from tensorboard import default, main_lib, program
from tensorboard.plugins import base_plugin

from ._plugin import with_anomaly_plugin


def main() -> int:
    main_lib.global_init()
    tensorboard = program.TensorBoard(plugins=with_anomaly_plugin(default.get_plugins()))
    try:
        app.run(tensorboard.main, flags_parser=tensorboard.configure)
    except base_plugin.FlagsError as e:
        print(f"Error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
