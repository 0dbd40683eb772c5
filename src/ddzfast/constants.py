"""Facts of the game and limits of the library, each defined once.

Every other module (the compiled core included) imports these names rather
than repeating them; ``_core`` checks at import that its C codes agree.
"""
from __future__ import annotations

import math
import numbers
import os
from collections.abc import Mapping, Set

# ---- cards -------------------------------------------------------------------

#: The card alphabet: card index i (0 = '3' ... 12 = '2', 13 = X, 14 = D,
#: 15 = the wildcard W) is CARD_CHARS[i].
CARD_CHARS = "3456789TJQKA2XDW"
RANKS = 13                  # the ranks 3..2, card indices 0..12
IDX_X = 13                  # the small joker
IDX_D = 14                  # the big joker
IDX_W = 15                  # the wildcard (biegang's W, super's flower card)

#: Copies of each card index in a deck (W: in decks that have it).
CARD_LIMITS = (4,) * RANKS + (1, 1, 1)

#: ``wild`` of a move without W.
WILD_NONE = 255
#: ``wild`` of a move whose W is a kicker or plays as itself.
WILD_KICKER = 15

#: Cards a deal gives each seat, and the largest hand (the landlord's, with
#: its kitty) by whether the deck holds W.
DEAL_CARDS = 17
MAX_HAND = {False: 20, True: 21}

#: The environments' actions after the moves: with bidding, bid 1, 2 and 3;
#: with the platform options of RULES.md 10, choices 1..4 (a call, rob or
#: show is choice 1, the doubling factors 2 and 4 are choices 2 and 4).
BID_ACTIONS = 3
CHOICE_ACTIONS = 4

#: DouZero's int for each card index 0..14 ('3'..'A' are 3..14, '2' is 17,
#: X is 20, D is 30; ddzfast.compat.douzero converts with this table).
DOUZERO_CARDS = (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30)


def deck_text(wildcard: bool) -> str:
    """The whole deck as card text (54 cards, 55 with W)."""
    return CARD_CHARS[:RANKS] * 4 + "XD" + ("W" if wildcard else "")


def describe_wild(wild: int, kind_plays_itself: bool) -> str:
    """What W does in a move, as text ('' when the move has no W).

    ``kind_plays_itself``: the move is a special kind (rocket or bomb made
    with W) in which a ``WILD_KICKER`` W plays as itself rather than as a
    kicker."""
    if wild == WILD_NONE:
        return ""
    if wild == WILD_KICKER:
        return "W as itself" if kind_plays_itself else "W as kicker"
    return f"W as {CARD_CHARS[wild]}"


# ---- numbers -----------------------------------------------------------------

def check_finite(value, what: str) -> float:
    """``value`` (a real number, never a bool) as a finite float: TypeError
    for anything else, ValueError for NaN, an infinity or an int beyond a
    float's range (about 1.8e308, where ``float()`` would raise
    OverflowError)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what} must be a number, not {type(value).__name__} {value!r}")
    try:
        f = float(value)
    except OverflowError:
        raise ValueError(f"{what} is out of range: too large for a float (beyond "
                         f"about +-1.8e308)") from None
    if not math.isfinite(f):
        raise ValueError(f"{what} must be finite, not {f}")
    return f


def check_int(value, what: str) -> int:
    """``value`` (an int or a NumPy integer, never a bool) as an int, else
    TypeError: a float such as 1.0 is no count."""
    if type(value) is int:
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{what} must be an int, not {type(value).__name__} {value!r}")
    return int(value)


def check_bool(value, what: str) -> bool:
    """``value`` (a bool or a NumPy bool) as a bool, else TypeError: an int
    such as 1 is no flag."""
    import numpy as np
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what} must be True or False, not {value!r}")
    return bool(value)


def check_positive(value, what: str) -> float:
    """``check_finite(value, what)``, and above 0 (else ValueError)."""
    f = check_finite(value, what)
    if not f > 0:
        raise ValueError(f"{what} must be positive, not {value!r}")
    return f


# ---- sequences ---------------------------------------------------------------

def is_unordered(value) -> bool:
    """Whether ``value`` is a set or a mapping: iterating one reads its keys,
    in an order that is not the caller's (a set of strings iterates in
    another order in each process), so it is no sequence of seats, hands or
    rows."""
    return isinstance(value, (Set, Mapping))


def check_ordered(value, what: str) -> None:
    """TypeError when ``value``, which the caller reads item by item in
    order, is a set or a mapping (``is_unordered``): rows would come back
    matched to nothing."""
    if is_unordered(value):
        raise TypeError(f"{what} must be a sequence in order (a list, a tuple or an "
                        f"array), not a {type(value).__name__}: a set or a mapping has "
                        f"no order")


# ---- optional packages -------------------------------------------------------

def broken_import(exc: ImportError, *modules: str) -> str | None:
    """Why importing the optional packages ``modules`` (or submodules of
    them) failed with ``exc``: None when one of them is not installed (a
    ModuleNotFoundError naming it or one of its submodules), else
    ``"which is installed but failed to import: <exc>"``. An installed
    package can fail its own imports: pyarrow 26 and later refuse numpy 1.x
    but do not require numpy 2 in their metadata, so pip installs them
    beside numpy 1.26; rlcard's agents import distutils, gone from Python
    3.12. Saying "not installed" then sends the user to install it again."""
    name = getattr(exc, "name", None) or ""
    if isinstance(exc, ModuleNotFoundError):
        for module in modules:
            top = module.split(".")[0]
            if name == top or name.startswith(top + "."):
                return None
    return f"which is installed but failed to import: {exc}"


def import_optional(module: str, extra: str, what: str):
    """The optional package ``module``, imported for ``what`` (a function or
    option of ddzfast), or an ImportError that says ``what`` needs it: that
    it failed its own import and why (broken_import), else how to install
    the ``extra`` that brings it."""
    try:
        found = __import__(module)
    except ImportError as exc:
        broken = broken_import(exc, module)
        if broken:
            raise ImportError(f"{what} needs {module}, {broken}") from exc
        raise ImportError(f"{what} needs {module}: pip install 'ddzfast[{extra}]'") from None
    if getattr(found, "__file__", None) is None and "." not in module:
        # a folder of that name on the path (Ray's /tmp/ray, when run from
        # /tmp), imported as an empty namespace package: not the package
        raise ImportError(folder_not_package(module, extra, what,
                                             getattr(found, "__path__", [])))
    return found


def folder_not_package(module: str, extra: str, what: str, paths) -> str:
    """The message for a folder named ``module`` on the path (``paths``, the
    namespace package it imports as) where the package should be."""
    return (f"{what} needs {module}, and what imports as {module} is a folder "
            f"({', '.join(dict.fromkeys(paths))}), not the package: "
            f"pip install 'ddzfast[{extra}]'")


# ---- threads and chunks ---------------------------------------------------

#: The most threads any call accepts; more is a ValueError.
MAX_THREADS = 1024


def check_threads(threads, what: str = "threads") -> int:
    """``threads`` as an int in 1..MAX_THREADS, else TypeError/ValueError."""
    threads = check_int(threads, what)
    if not 1 <= threads <= MAX_THREADS:
        raise ValueError(f"{what} must be in 1..{MAX_THREADS}, not {threads}")
    return threads


def worker_count(threads: int, items: int) -> int:
    """How many threads to start for ``items`` independent pieces of work:
    never more than the items, nor than the machine's CPUs (CPU-bound work
    gains nothing from more), nor than asked for."""
    if threads <= 1 or items <= 1:
        # (os.cpu_count reads a file on Linux: more than a small batch takes)
        return 1
    cpus = os.cpu_count() or 1
    return max(1, min(threads, items, cpus))


def split_policies(policies, count: int, type_message: str, count_message: str) -> tuple:
    """``count`` policy items (unchecked) from text (``"random,greedy"``), a
    callable or a sequence of them; one item stands for all ``count``.
    TypeError ``type_message`` (``{type}``: the argument's type name) for
    anything else, ValueError ``count_message`` (``{n}``: how many) for
    another number of items. Bytes are a TypeError too (iterated, they would
    be read as ints), and so are sets and mappings (their order is no seat
    order: a set of names iterates in an order that changes from process to
    process)."""
    # text first: the ABC checks below cost more than the rest of a rollout's
    # reading of its policies
    if isinstance(policies, str):
        items: tuple = tuple(p.strip() for p in policies.split(","))
    elif isinstance(policies, (bytes, bytearray)):
        raise TypeError(type_message.format(type=type(policies).__name__)
                        + " (decode bytes to text first)")
    elif is_unordered(policies):
        raise TypeError(type_message.format(type=type(policies).__name__)
                        + " (a set or a mapping has no seat order: give a list or a tuple)")
    elif callable(policies):
        items = (policies,)
    else:
        try:
            items = tuple(policies)
        except TypeError:
            raise TypeError(type_message.format(type=type(policies).__name__)) from None
    if len(items) == 1:
        items = items * count
    if len(items) != count:
        raise ValueError(count_message.format(n=len(items)))
    return items
