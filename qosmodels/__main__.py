"""``python -m qosmodels``: the ``qosmodels`` console script (:func:`qosmodels.cli.main`)."""

import sys

from .cli import main

if __name__ == "__main__":  # pragma: no cover - exercised through a subprocess
    sys.exit(main())
