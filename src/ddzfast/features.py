"""Fixed-width numeric encodings for learning agents, and a fixed action index
per rule set.

Encodings (vectorised over any number of hands or moves):

* ``encode_hands(hands) -> uint8 array (N, 61)``: for each hand (a ``Hand``,
  a packed int or a 1-d integer array of packed hands; card text only as
  ``Hand(text)``), a 4x15 count plane flattened row by row
  (``plane[j, i] = 1`` when the hand holds more than ``j`` cards of index
  ``i``). The jokers use row 0 only, so 54 of the 60 cells carry information:
  the same features as DouZero's 54-dimension encoding, in another order. Then
  one wildcard channel (the number of W, 0 or 1).
* ``encode_moves(moves, rules=None) -> uint8 array (N, 77)``: the same 61
  features of a move's physical cards, then 16 columns for what the
  wildcards stand for. With a W: a one-hot (columns 61 + 0..14: the card
  index W completes; 61 + 15: W is a kicker or plays as itself). In a laizi
  move, whose laizi are natural cards of the wild rank and play no W:
  column 61 + i (rank i, 3..2) is how many laizi stand for rank i in the
  move's main part, 0..4 (``Move.substitutes``; laizi played as their own
  rank or as kickers are not counted). tiandi the same with the laizi of
  both wild ranks, 0..8 (eight laizi in a SOFT_BOMB), a wild main rank
  counted too (``Move.substitutes``: a move of laizi alone records each at
  its own rank); which wild rank's cards fill a rank is not recorded, as
  the move's identity does not tell it. All zero otherwise. Each row must be
  a move the core would produce: a legal move of ``rules`` (of some built-in
  rule set when None; laizi moves need a ranked rule set, ``"laizi:7"`` or
  ``"tiandi:7J"``), with the ``wild`` and ``substitutes`` the core derives
  for it.
* ``decode_hands(features)`` turns either encoding back into packed hands;
  features no hand can produce are a ValueError, and so are a move's W and
  substitute columns out of their form (that the row is a legal move is
  not checked: it decodes the cards).

The action index gives every move identity that a hand of the rule set can
make (PASS included, at most 20 cards in ``classic`` and 21 in the wildcard
sets) one integer, stable for a given ddzfast version: ``action_moves(rules)``
lists them in index order (PASS is 0), ``action_index(moves, rules)`` maps
moves to indices and ``legal_action_mask(moves, rules)`` marks them in a
boolean vector of ``action_count(rules)``. A move's identity is (kind, rank,
length, cards); its ``wild`` follows from them and is not looked at.
The core keeps a C hash of each table (built with it) and looks moves up
there: ``action_index`` and ``legal_action_mask`` use it, and
``ddzfast.legal_action_indices``, ``legal_action_mask_into`` and their
batches give a position's actions straight from the hand, with no Move made.

Each rule set's table (a few MB) is built once and kept in a small cache keyed
by the rule set's description, so equal rule sets share one table and
``with_options`` copies do not add up. laizi has a table per wild rank (a
laizi set without its wild rank has none: ValueError): 1.05 million actions
for wild ranks 7..T up to 2.07 million for 2 (1.84 million for 3 and A),
built in 0.3 to 2 s and holding 59 to 83 MB each with the core's hash (16
bytes a move, 8 a key, 4 per hash slot, the hash at most a quarter full).
tiandi has a table per pair of wild ranks, shared by the pair's two
orders (a tiandi set without both has none: ValueError), far larger:
docs/learning.md lists their sizes and build times (about 4.7 million
actions and 250 MB for ``"tiandi:7J"``, 17 million and 950 MB for
``"tiandi:32"``). The cache
keeps ACTION_CACHE_SIZE tables and at most ACTION_CACHE_BYTES of them (the
newest always), so a program cycling through all 13 laizi wild ranks
(``Game("laizi")`` over many deals) keeps them all (877 MB together), and
one cycling through tiandi pairs keeps a few and rebuilds the others.
"""
from __future__ import annotations

import numbers
from collections import OrderedDict
from collections.abc import Mapping, Set

import numpy as np

from ddzfast._core import (_ANY_RULES, MOVE_DTYPE, Hand, Move, MoveList, Rules,
                           _action_lookup, _ActionTable, _any_rules_label,
                           _feature_rows_decode, _feature_rows_hands,
                           _feature_rows_moves,
                           _move_rows_substitutes, _move_rows_wild, _rules_label,
                           get_rules, legal_moves)
from ddzfast._locks import ForkSafeLock
from ddzfast._readonly import read_only
from ddzfast.constants import (CARD_CHARS, CARD_LIMITS, MAX_HAND, WILD_NONE, check_ordered,
                               deck_text)
from ddzfast.errors import IllegalMoveError, InvalidCardsError
from ddzfast.movekind import MoveKind
from ddzfast.rulesets import PLATFORM_DEFAULTS

HAND_FEATURES = 61
MOVE_FEATURES = 77

_PLANE_ROWS = 4                       # the most copies of a card (CARD_LIMITS)
_PLANE_COLS = 15                      # card indices 3..2, X, D (W has its column)
_WILD_COLS = MOVE_FEATURES - HAND_FEATURES
_RANKS = 13                           # card indices 3..2: what laizi can stand for
_MAX_SUBSTITUTES = 8                  # laizi standing for one rank (a tiandi soft bomb)

_SHIFTS = np.arange(16, dtype=np.uint64) * np.uint64(4)
_ROWS = np.arange(_PLANE_ROWS, dtype=np.uint8)
_LIMITS = np.array(CARD_LIMITS, dtype=np.uint8)
# plane[j, i] can be 1 only where a deck holds more than j cards of index i
_PLANE_POSSIBLE = (_LIMITS[None, :_PLANE_COLS] > _ROWS[:, None])

# Bit layout of an action key (_keys): 3 bits per rank count, 1 per X, D, W,
# then kind (5 bits), rank (4 bits) and length (the 13 bits left). Fields are
# range-checked before packing (_first_out_of_range), so no two identities share
# a key; the layout fixes the action order, so it must not change.
_KIND_SHIFT, _KIND_BITS = 42, 5
_RANK_SHIFT, _RANK_BITS = 47, 4
_LENGTH_SHIFT = 51
_NKINDS = len(MoveKind)
assert _NKINDS <= 1 << _KIND_BITS
_KEY_SHIFTS = np.concatenate([np.arange(13) * 3, [39, 40, 41]]).astype(np.uint64)


def _counts(packed: np.ndarray) -> np.ndarray:
    return ((packed[:, None] >> _SHIFTS) & np.uint64(15)).astype(np.uint8)


def _cards_text(packed: int) -> str:
    """Card text of packed cards, or their hex when no deck holds them."""
    counts = [(packed >> (4 * i)) & 15 for i in range(16)]
    if any(c > lim for c, lim in zip(counts, CARD_LIMITS)):
        return hex(packed)
    return "".join(ch * c for ch, c in zip(CARD_CHARS, counts)) or "(no cards)"


def _check_deck(packed: np.ndarray, what: str) -> np.ndarray:
    """The card counts of ``packed``; InvalidCardsError when one holds more
    copies of a card than a deck has."""
    counts = _counts(packed)
    over = (counts > _LIMITS).any(axis=1)
    if over.any():
        i = int(np.argmax(over))
        raise InvalidCardsError(
            f"{what}[{i}] ({hex(int(packed[i]))}) holds more copies of a card than a "
            f"deck has")
    return counts


# ---- hands -----------------------------------------------------------------------

def _text_hint(value) -> TypeError:
    """The TypeError for card text (a str, or bytes) where hands are packed."""
    if isinstance(value, (bytes, bytearray)):
        return TypeError(f"{type(value).__name__} {value!r} is not a hand here: pass "
                         f"Hand(text) of card text (bytes would be read byte by "
                         f"byte, each as a packed hand)")
    return TypeError(f"card text {value!r} is not a hand here: pass Hand({value!r}) "
                     f"(a str would be read character by character)")


def _as_packed(hands) -> np.ndarray:
    """Packed hands as a 1-d uint64 array from a Hand, an int, a 1-d integer
    array or an iterable of Hands and ints."""
    if isinstance(hands, (str, bytes, bytearray)):
        raise _text_hint(hands)
    if isinstance(hands, (Hand, numbers.Integral)) and not isinstance(hands, (bool, np.bool_)):
        hands = [hands]
    check_ordered(hands, "hands")
    if isinstance(hands, np.ndarray) and hands.dtype != object:
        arr = hands
        if arr.size == 0 and arr.ndim == 1:
            return np.zeros(0, dtype=np.uint64)
        if arr.dtype.kind not in "iu":
            raise TypeError(f"hands must be packed integers or Hands, not {arr.dtype}")
    else:
        try:
            items = list(hands)
        except TypeError:
            raise TypeError(f"hands must be a Hand, a packed int or a sequence of them, "
                            f"not {type(hands).__name__}") from None
        values = []
        for i, h in enumerate(items):
            if isinstance(h, Hand):
                values.append(int(h))
            elif isinstance(h, (str, bytes, bytearray)):
                raise _text_hint(h)
            elif isinstance(h, numbers.Integral) and not isinstance(h, (bool, np.bool_)):
                if not 0 <= int(h) < 1 << 64:
                    raise ValueError(f"hands[{i}] = {int(h)} is not a packed hand "
                                     f"(0 <= value < 2**64)")
                values.append(int(h))
            else:
                raise TypeError(f"hands[{i}] must be a Hand or a packed int, "
                                f"not {type(h).__name__}")
        arr = np.array(values, dtype=np.uint64)
    if arr.ndim != 1:
        raise ValueError(f"hands must be 1-d, not of shape {arr.shape}")
    if arr.dtype.kind == "i" and arr.size and arr.min() < 0:
        raise ValueError("a packed hand is never negative")
    return arr.astype(np.uint64, copy=False)


def encode_hands(hands) -> np.ndarray:
    """(N, 61) uint8 features of hands: a ``Hand``, a packed int, or a 1-d
    sequence or integer array of them. Card text (a str, or bytes) is a
    TypeError: pass ``Hand(text)``. Packed values holding more copies of a
    card than a deck has are an InvalidCardsError."""
    packed = np.ascontiguousarray(_as_packed(hands))
    out = np.empty((len(packed), HAND_FEATURES), dtype=np.uint8)
    if _feature_rows_hands(packed, out) >= 0:
        _check_deck(packed, "hands")            # its message
        raise AssertionError("a hand the core rejects passes features._check_deck")
    return out


# ---- moves -----------------------------------------------------------------------

def _as_moves(moves) -> np.ndarray:
    arr = moves.array if hasattr(moves, "array") else np.asarray(moves)
    if arr.dtype != MOVE_DTYPE:
        raise TypeError(f"moves must be MOVE_DTYPE, not {arr.dtype}")
    if arr.ndim > 1:
        raise ValueError(f"moves must be 1-d (or one row), not of shape {arr.shape}")
    return np.ascontiguousarray(arr.reshape(-1))


def _row_text(arr: np.ndarray, i: int) -> str:
    row = arr[i]
    return (f"moves[{i}] (kind {int(row['kind'])}, rank {int(row['rank'])}, "
            f"length {int(row['length'])}, cards {_cards_text(int(row['cards']))}, "
            f"wild {int(row['wild'])})")


def _first_out_of_range(arr: np.ndarray) -> int:
    """The first row whose kind, rank, length or cards are out of the ranges
    a move can have (so they fit their key fields and the core can look
    them up), or ``len(arr)``."""
    bad = ((arr["kind"] >= _NKINDS) | (arr["rank"] >= 1 << _RANK_BITS))
    counts = _counts(arr["cards"])
    bad |= (counts > _LIMITS).any(axis=1)
    return int(np.argmax(bad)) if bad.any() else len(arr)


def _check_legal(arr: np.ndarray, rules, check_wild: bool,
                 illegal: str = "{row} is not a legal move of {where}") -> np.ndarray:
    """Every row is a legal move of ``rules`` (of some built-in rule set when
    None; a laizi set only with its wild rank) and, with ``check_wild``,
    carries the ``wild`` and ``substitutes`` the core derives for it.
    IllegalMoveError naming the first row that is not. Returns the derived
    substitutes (uint32; zero for rows of rule sets without laizi)."""
    # the rows before the first one out of range are looked up (an earlier
    # illegal row is the first bad one); that row is not, as the core
    # cannot look it up
    first_out = _first_out_of_range(arr)
    if first_out < len(arr):
        _check_legal(arr[:first_out], rules, check_wild, illegal)
        raise IllegalMoveError(f"{_row_text(arr, first_out)} is no move: kind must be "
                               f"below {_NKINDS}, rank below {1 << _RANK_BITS} and the "
                               f"cards of a deck")
    # np.ndarray: np.where's results (any shape, any dtype in numpy 2.2's
    # stubs) are assigned to these, which those stubs would type 1-d uint32
    # and int16
    subs: np.ndarray = np.zeros(len(arr), dtype=np.uint32)
    if len(arr) == 0:
        return subs
    if rules is not None:
        candidates = [get_rules(rules)]
    else:
        candidates = list(_ANY_RULES)
    legal = np.zeros(len(arr), dtype=bool)
    ok = np.zeros(len(arr), dtype=bool)
    derived: np.ndarray = np.full(len(arr), -1, dtype=np.int16)
    for r in candidates:
        w = _move_rows_wild(arr, r)
        fits = w >= 0
        s = _move_rows_substitutes(arr, r)
        derived = np.where(fits & ~legal, w, derived)
        subs = np.where(fits & ~legal, s, subs)
        legal |= fits
        ok |= fits & (((w == arr["wild"]) & (s == arr["substitutes"])) if check_wild else True)
    if ok.all():
        return subs
    i = int(np.argmin(ok))
    where = _rules_label(candidates[0]) if rules is not None else _any_rules_label()
    if not legal[i]:
        raise IllegalMoveError(illegal.format(row=_row_text(arr, i), where=where))
    if rules is None and int(arr[i]["substitutes"]) and not int(subs[i]):
        # only a laizi rule set makes substitutes, and without rules none
        # was tried: its identity is some other rule set's move
        raise IllegalMoveError(f"{_row_text(arr, i)} has substitutes "
                               f"{int(arr[i]['substitutes'])}, which only a laizi rule "
                               f"set makes: it is no move of {where}")
    if int(arr[i]["substitutes"]) != int(subs[i]):
        raise IllegalMoveError(f"{_row_text(arr, i)} has substitutes "
                               f"{int(arr[i]['substitutes'])}, but the core derives "
                               f"{int(subs[i])} for this move")
    raise IllegalMoveError(f"{_row_text(arr, i)} has wild {int(arr[i]['wild'])}, but the "
                           f"core derives wild {int(derived[i])} for this move")


def encode_moves(moves, rules=None) -> np.ndarray:
    """(N, 77) uint8 features of a MOVE_DTYPE array (or a MoveList): the 61
    card features, then what the wildcards stand for (see the module
    docstring: a one-hot for W; per rank, how many laizi stand for it).

    Every row must be a move as the core produces it: a legal move of
    ``rules`` (for a MoveList with ``rules=None``, of the list's rule set;
    otherwise, with None, of some built-in rule set, laizi excepted: pass
    ``rules="laizi:7"`` for those) whose ``wild`` and ``substitutes`` are the
    ones the core derives. Anything else is an IllegalMoveError naming the
    first bad row."""
    if rules is None and hasattr(moves, "array") and hasattr(moves, "rules"):
        rules = moves.rules
    arr = _as_moves(moves)
    out = np.empty((len(arr), MOVE_FEATURES), dtype=np.uint8)
    candidates = (get_rules(rules),) if rules is not None else _ANY_RULES
    if len(arr) and _feature_rows_moves(arr, candidates, out) >= 0:
        # a row that is no such move: the checks' message for it
        _check_legal(arr, rules, check_wild=True)
        raise AssertionError("a row the core rejects passes features._check_legal")
    return out


def decode_hands(features) -> np.ndarray:
    """Packed hands (uint64) from ``encode_hands`` rows (N, 61) or
    ``encode_moves`` rows (N, 77) (for moves: the physical cards played).
    Every value must be 0 or 1 (0..8 in the substitute columns of a move
    without W), and the rows a pattern an encoding can produce (each card's
    plane column filled from row 0 down, jokers in row 0 only; for moves a W
    one-hot exactly when W is played, else substitute counts of ranks 3..2
    that the cards of one or two ranks can play); anything else is a
    ValueError naming the first bad row."""
    f = np.asarray(features)
    if f.dtype.kind not in "biuf":
        raise TypeError(f"features must be numeric, not {f.dtype}")
    if f.ndim != 2 or f.shape[1] not in (HAND_FEATURES, MOVE_FEATURES):
        raise ValueError(f"features must be of shape (N, {HAND_FEATURES}) or "
                         f"(N, {MOVE_FEATURES}), not {f.shape}")
    # (any other numeric type as float64: exact for the values that pass,
    # and no other value becomes one of them; a float wider than float64
    # would round values next to 0 .. 8 onto them, so it is checked as it is)
    if f.dtype.kind == "f" and f.dtype.itemsize > 8:
        _check_encoding(f)
    rows = np.ascontiguousarray(f, dtype=np.uint8 if f.dtype.kind == "b" or
                                f.dtype == np.uint8 else np.float64)
    packed = np.empty(len(rows), dtype=np.uint64)
    if _feature_rows_decode(rows, packed) >= 0:
        _check_encoding(f)                      # its message
        raise AssertionError("a row the core rejects passes features._check_encoding")
    return packed


def _check_encoding(f: np.ndarray) -> None:
    """decode_hands' checks of numeric features of a valid shape, written
    over the whole array: ValueError naming the first row that fails."""
    binary = (f == 0) | (f == 1)
    if f.shape[1] == MOVE_FEATURES:
        # laizi substitute counts: 0..8 in the columns of ranks 3..2
        subs = f[:, HAND_FEATURES:HAND_FEATURES + _RANKS]
        binary[:, HAND_FEATURES:HAND_FEATURES + _RANKS] = (
            (subs == np.round(subs)) & (subs >= 0) & (subs <= _MAX_SUBSTITUTES))
    binary = binary.all(axis=1)
    if not binary.all():
        i = int(np.argmin(binary))
        raise ValueError(f"features[{i}] holds values other than 0 and 1 (0..8 in a "
                         f"laizi move's substitute columns)")
    f = f.astype(np.uint8)
    planes = f[:, :60].reshape(len(f), _PLANE_ROWS, _PLANE_COLS)
    # a count plane fills each card's column from row 0 down, and only up to
    # the copies a deck has
    gap = (planes[:, 1:] > planes[:, :-1]).any(axis=(1, 2))
    beyond = (planes & ~_PLANE_POSSIBLE).any(axis=(1, 2))
    bad = gap | beyond
    if f.shape[1] == MOVE_FEATURES:
        # a move playing W has a one-hot of what it stands for; one without
        # W has none, only (laizi) substitute counts of ranks 3..2
        wild = f[:, HAND_FEATURES:]
        plays_w = f[:, 60] == 1
        bad |= plays_w & ((wild > 1).any(axis=1) | (wild.sum(axis=1) != 1))
        bad |= ~plays_w & (wild[:, _RANKS:] != 0).any(axis=1)
        # the laizi are the cards of one wild rank (laizi) or two (tiandi):
        # the two ranks holding the most cards hold every substitute
        subs = wild[:, :_RANKS].astype(np.int64)
        held = np.sort(planes[:, :, :_RANKS].sum(axis=1), axis=1)
        bad |= ~plays_w & (subs.sum(axis=1) > held[:, -2:].sum(axis=1))
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"features[{i}] is no encoding of a hand or move: a plane "
                         f"row is set without the row above it, a joker beyond "
                         f"row 0, or the W one-hot disagrees with the W column")


# ---- the action index ---------------------------------------------------------

def _keys(arr: np.ndarray) -> np.ndarray:
    """One uint64 per move identity (see the bit layout above). The caller
    has range-checked the rows (_first_out_of_range)."""
    # card by card rather than through an (N, 16) count matrix: a laizi
    # table has millions of rows
    cards = arr["cards"]
    key = np.zeros(len(arr), dtype=np.uint64)
    for i in range(16):
        key |= ((cards >> _SHIFTS[i]) & np.uint64(15)) << _KEY_SHIFTS[i]
    key |= arr["kind"].astype(np.uint64) << np.uint64(_KIND_SHIFT)
    key |= arr["rank"].astype(np.uint64) << np.uint64(_RANK_SHIFT)
    key |= arr["length"].astype(np.uint64) << np.uint64(_LENGTH_SHIFT)
    return key


def _canonical(value):
    """A hashable form of a description value in which equal values are
    equal: mappings and sets sorted, sequences as tuples."""
    if isinstance(value, Mapping):
        return ("map", tuple(sorted(((str(k), _canonical(v)) for k, v in value.items()),
                                    key=repr)))
    if isinstance(value, Set):
        return ("set", tuple(sorted((_canonical(v) for v in value), key=repr)))
    if isinstance(value, (list, tuple)):
        return ("seq", tuple(_canonical(v) for v in value))
    try:
        hash(value)
    except TypeError:
        return ("repr", repr(value))
    return value


def description_key(rules, ignore=frozenset()) -> tuple:
    """A hashable, canonical key of a rule set's description (a name or a
    Rules): two rule sets with equal descriptions, fields in ``ignore``
    left out, have equal keys."""
    r = get_rules(rules)
    return tuple(sorted((name, _canonical(value)) for name, value in r.description.items()
                        if name not in ignore))


# Fields that only scoring reads, and the platform options (RULES.md 10:
# bidding, showing, doubling, dealing). Which moves exist (the action table)
# does not depend on them, so rule sets differing only there share a table
# ("tiandi:7J+happy" and "tiandi:7J"). Any other field, including one added
# later, is part of the key: a table is never shared between rule sets that
# might generate different moves.
_SCORING_FIELDS = frozenset({"multipliers", "mult_cap", "service_fee", "deal_cap"}
                            | set(PLATFORM_DEFAULTS))

def _moves_key(rules) -> tuple:
    """A key equal for rule sets that make the same moves: their
    descriptions less the scoring fields and the platform options, and
    tiandi's two wild ranks as a set (which is the sky rank decides only
    which is drawn first: RULES.md 9 makes the two ranks' laizi
    interchangeable, so "tiandi:7J" and "tiandi:J7" have one table). Rule
    sets of one key share an action table."""
    r = get_rules(rules)
    if r.wild_count == 2 and r.wild_ranks:
        r = r.with_options(wild_ranks=tuple(sorted(r.wild_ranks)))
    return description_key(r, ignore=_SCORING_FIELDS)


#: How many rule sets' action tables are kept: the built-in sets, laizi's 13
#: wild ranks and a few custom ones (ACTION_CACHE_BYTES bounds their memory).
#: Least recently used goes first.
ACTION_CACHE_SIZE = 16
#: How many bytes of action tables are kept (moves, keys and the core's
#: hash): past it the least recently used go too, the newest always stays.
#: A tiandi table is hundreds of MB, so a few fill it.
ACTION_CACHE_BYTES = 2 << 30

# The one cache of action tables: the core's lookups (legal_action_indices,
# masks, Game, VectorEnv) ask it too, so both paths share each table and
# the limits above bound them all.
_action_tables: OrderedDict[tuple, tuple[np.ndarray, np.ndarray, _ActionTable]] = OrderedDict()
# The key of each rules_id asked for, while its table is kept: the core asks
# by Rules object, and a description's key costs more than a lookup.
_action_keys: dict[int, tuple] = {}
# Held while the cache is read or changed (never during a build).
_action_lock = ForkSafeLock()
# One lock per key being built, so two threads asking for one rule set
# build it once, and threads asking for other tables meanwhile do not wait
# for that build (a tiandi table takes seconds).
_build_locks: dict[tuple, ForkSafeLock] = {}


_LOW_NIBBLES = np.uint64(0x0F0F0F0F0F0F0F0F)
_BYTE_SUM = np.uint64(0x0101010101010101)


def _playable(every: np.ndarray, most: int) -> np.ndarray:
    """The rows of ``every`` with at most ``most`` cards, in their order."""
    # in chunks: a whole deck's tiandi moves are tens of millions of rows,
    # and full-length temporaries would be gigabytes. The card count is the
    # sum of the 16 nibbles: pairs of nibbles summed into bytes (at most 8
    # each), then the bytes summed into the top byte by one multiplication.
    parts = []
    for start in range(0, len(every), 1 << 20):
        chunk = every[start:start + (1 << 20)]
        cards = chunk["cards"]
        pairs = (cards & _LOW_NIBBLES) + ((cards >> np.uint64(4)) & _LOW_NIBBLES)
        sizes = (pairs * _BYTE_SUM) >> np.uint64(56)
        parts.append(chunk[sizes <= most])
    return np.concatenate(parts) if parts else every[:0].copy()


def _build_action_table(rules: Rules) -> tuple[np.ndarray, np.ndarray, _ActionTable]:
    # legal_moves refuses a laizi set without its wild rank (tiandi: without
    # both), so such a set has no table
    listed = legal_moves(deck_text(rules.wildcard), None, rules)
    pass_row = np.zeros(1, dtype=MOVE_DTYPE)
    pass_row["wild"] = WILD_NONE
    moves = np.concatenate([pass_row, _playable(listed.array, MAX_HAND[rules.wildcard])])
    del listed
    keys = _keys(moves)
    order = np.argsort(keys, kind="stable")
    moves = moves[order]
    del order
    keys.sort()
    # PASS's key is 0, the smallest: it lands at index 0.
    moves = read_only(moves)
    keys = read_only(keys)
    # the core's hash lookup over these very rows (it keeps them alive)
    return moves, keys, _ActionTable(moves)


def _table_bytes(table) -> int:
    return table[0].nbytes + table[1].nbytes + table[2].slot_bytes


def _cached_table(r: Rules, key: tuple):
    """The kept table of ``key`` (marked as used last, and ``r``'s id noted),
    or None; called with _action_lock held."""
    table = _action_tables.get(key)
    if table is not None:
        _action_tables.move_to_end(key)
        _action_keys[r.rules_id] = key
    return table


def _action_table(rules) -> tuple[np.ndarray, np.ndarray, _ActionTable]:
    r = get_rules(rules)
    with _action_lock:
        key = _action_keys.get(r.rules_id)
        if key is None:
            key = _moves_key(r)
        table = _cached_table(r, key)
        if table is not None:
            return table
        build = _build_locks.setdefault(key, ForkSafeLock())
    with build:
        with _action_lock:
            # (built by the thread this one waited for)
            table = _cached_table(r, key)
        if table is not None:
            return table
        table = _build_action_table(r)
        with _action_lock:
            _action_tables[key] = table
            while len(_action_tables) > ACTION_CACHE_SIZE or (
                    len(_action_tables) > 1 and sum(map(_table_bytes, _action_tables.values()))
                    > ACTION_CACHE_BYTES):
                gone, _ = _action_tables.popitem(last=False)
                for rules_id in [i for i, k in _action_keys.items() if k == gone]:
                    del _action_keys[rules_id]
            _action_keys[r.rules_id] = key
            # (threads waiting on it hold it and find the table kept)
            _build_locks.pop(key, None)
        return table


def action_moves(rules="classic") -> np.ndarray:
    """Every action of the rule set as a read-only MOVE_DTYPE array, in index
    order (index 0 is PASS). Built once per rule set (about a second for the
    wildcard sets; laizi has a table per wild rank, 1.05 to 2.07 million
    actions, 0.3 to 2 s and 59 to 83 MB each with the core's hash; tiandi
    one per pair of wild ranks, 4.7 to 17 million actions: see the module
    docstring)."""
    return _action_table(rules)[0]


def action_count(rules="classic") -> int:
    """How many actions the rule set has."""
    return _action_lookup(rules).count


def action_index(moves, rules="classic") -> np.ndarray:
    """The action index (int64) of each move (a MOVE_DTYPE array, a
    MoveList, or a Move: one index). IllegalMoveError, naming the first bad
    row, for a row that is no legal move of the rule set or no action of it
    (more cards than a hand holds); a row's ``wild`` is not looked at. The
    lookup runs in C (the core's hash of the action table); only a row it
    does not find takes the slower checks that name what is wrong with it."""
    r = get_rules(rules)
    lookup = _action_lookup(r)
    arr = moves if type(moves) is MoveList or type(moves) is Move else _as_moves(moves)
    idx = lookup.lookup(arr)
    if len(idx) and idx.min() < 0:
        _unknown_action(_as_moves(moves), idx, r)
    return idx


def _unknown_action(arr: np.ndarray, idx: np.ndarray, r: Rules) -> None:
    """Raise the IllegalMoveError for the first row the lookup did not find:
    not a legal move of ``r``, or one with more cards than a hand holds."""
    # the rows before it were found, so they are actions of r
    i = int(np.argmax(idx < 0))
    _check_legal(arr[:i + 1], r, check_wild=False,
                 illegal="{row} is not an action of {where}: not a legal move of it")
    raise IllegalMoveError(f"{_row_text(arr, i)} is not an action of {_rules_label(r)}: "
                           f"more cards than a hand of it holds")


def legal_action_mask(moves, rules="classic") -> np.ndarray:
    """A boolean vector of ``action_count(rules)``, True at the actions of
    ``moves`` (for example a MoveList from ``legal_moves``). For the mask of
    a position, ``legal_action_mask_into(hand, last, rules, out)`` skips the
    moves altogether."""
    idx = action_index(moves, rules)
    mask = np.zeros(_action_lookup(rules).count, dtype=bool)
    mask[idx] = True
    return mask
