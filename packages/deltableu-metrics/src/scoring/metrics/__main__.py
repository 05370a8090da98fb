"""``python -m scoring.metrics``: see :mod:`scoring.metrics.cli`."""

import sys

from .cli import main

sys.exit(main())
