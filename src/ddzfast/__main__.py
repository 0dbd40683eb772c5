"""``python -m ddzfast``: the ``ddzfast`` command (see ``ddzfast.cli``)."""
import sys

from ddzfast.cli import main

if __name__ == "__main__":
    sys.exit(main())
