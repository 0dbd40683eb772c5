"""Arrays the library keeps and hands to its callers, read-only for good."""
from __future__ import annotations

import numpy as np


def read_only(a: np.ndarray) -> np.ndarray:
    """A copy of ``a`` that no one can write, for what the library shares
    and never changes (a cached table the core reads, a constant). Its
    memory is an immutable bytes object: numpy lets the array that owns
    its data be made writable again (``a.base.flags.writeable = True``)
    but refuses that for one over a read-only buffer, so a caller cannot
    change the table for everyone, or hand the core rows it never checked.
    """
    a = np.ascontiguousarray(a)
    raw = a.tobytes()
    # (a bytes object's data is aligned as any allocation; the padding is
    # for an allocator that would not do so)
    for pad in range(a.dtype.alignment):
        out = np.frombuffer(bytes(pad) + raw, dtype=a.dtype, offset=pad)
        if out.flags.aligned:
            return out.reshape(a.shape)
    raise RuntimeError(f"no aligned copy of an array of {a.dtype}")


def read_only_view(a: np.ndarray) -> np.ndarray:
    """A read-only view of ``a``, a buffer the library itself writes in
    place through its C pointer (as a step shifts DouZero's ``z``): both
    are marked read-only, so only ``a.base.flags.writeable = True`` makes
    it writable again; the core reads nothing from it that it trusts."""
    a.flags.writeable = False
    return a.view()
