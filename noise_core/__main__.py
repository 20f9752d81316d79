"""``python -m noise_core``: see :mod:`noise_core.cli`."""

import sys

from .cli import main

sys.exit(main())
