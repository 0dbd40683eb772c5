"""Locks of module-level state (caches, tables built on first use) that a
child of ``os.fork`` gets back unheld.

A child of fork has only the thread that forked: a lock another thread held
at that moment (a table half built) would never be released there, and every
later call that takes it would wait for ever. The state such a lock guards
is written only once complete, so the child finds it as it was before the
build began and builds again."""
import os
import threading
import weakref

__all__ = ["ForkSafeLock"]


class ForkSafeLock:
    """A ``threading.Lock`` (``with``, ``acquire``, ``release``,
    ``locked``) made anew, unheld, in a child of fork. Only for locks whose
    holder never forks while holding them (no locked region forks)."""

    __slots__ = ("_lock", "__weakref__")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        _LOCKS.add(self)

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        return self._lock.acquire(blocking, timeout)

    def release(self) -> None:
        self._lock.release()

    def locked(self) -> bool:
        return self._lock.locked()

    def __enter__(self) -> bool:
        return self._lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


_LOCKS: "weakref.WeakSet[ForkSafeLock]" = weakref.WeakSet()


def _unheld_in_child() -> None:
    for lock in list(_LOCKS):
        lock._lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_unheld_in_child)
