"""`python -m dominocam` is the same as the `dominocam` console script."""

import sys

from dominocam.cli import main

sys.exit(main())
