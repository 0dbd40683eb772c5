"""Argument types the benchmark scripts share (``type=`` of argparse): a
count or a time out of range is a usage error that names the option, not a
ZeroDivisionError or a statistics error after the run has started."""
from __future__ import annotations

import argparse
from typing import Callable

# the command line's own reading of a number of seconds (positive, finite)
from ddzfast.cli import _seconds as positive_seconds  # noqa: F401


def at_least(low: int) -> Callable[[str], int]:
    """An int of ``low`` or more."""
    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{value} is below {low}")
        return value
    return convert
