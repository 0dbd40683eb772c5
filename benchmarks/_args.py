"""Argument types the benchmark scripts share (``type=`` of argparse): a
count or a time out of range is a usage error that names the option, not a
ZeroDivisionError or a statistics error after the run has started."""
from __future__ import annotations

import argparse
import math
from typing import Callable


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


def positive_seconds(text: str) -> float:
    """A positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive, finite number "
                                         f"of seconds")
    return value
