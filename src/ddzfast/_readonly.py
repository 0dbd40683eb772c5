"""Arrays the library keeps and hands to its callers, read-only for good."""
from __future__ import annotations

import numpy as np


def read_only(a: np.ndarray) -> np.ndarray:
    """``a`` marked read-only and returned as a view of itself. Numpy lets
    the array that owns its data be made writable again
    (``a.flags.writeable = True``) but refuses that for a view of a
    read-only array, so a caller cannot write through what the library
    shares (a cached table the core reads, a constant) and change it for
    everyone. Keep only the view: it keeps ``a`` alive."""
    a.flags.writeable = False
    return a.view()
