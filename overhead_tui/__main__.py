"""``python -m overhead_tui`` is the same as ``overhead-tui``."""

import sys

from overhead_tui.cli import main

sys.exit(main())
