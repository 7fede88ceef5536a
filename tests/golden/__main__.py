"""``python -m tests.golden --check`` or ``--update``: see :mod:`tests.golden`."""

import sys

from tests.golden import main

sys.exit(main())
