"""``python -m overhead_tui.worker TASK_JSON``: run one worker (see ``worker.main``)."""

import sys

from overhead_tui.worker.main import main

if __name__ == "__main__":
    sys.exit(main())
