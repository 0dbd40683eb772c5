# The Python values of ddzfast, included into _core.pyx (their attributes
# are declared in _core.pxd): card text, rule
# sets (Rules), hands (Hand), moves (Move) and move lists (MoveList). They
# convert and validate; the C core computes.

import collections.abc
import hashlib
import itertools
import operator
import numbers
from types import MappingProxyType

from ddzfast.constants import (CARD_CHARS, CARD_LIMITS, DEAL_CARDS, WILD_KICKER as _WILD_KICKER,
                               WILD_NONE as _WILD_NONE, check_finite, describe_wild)
from ddzfast.errors import IllegalMoveError, InvalidCardsError

# Native byte order: the core reads and writes these rows as C structs.
MOVE_DTYPE = np.dtype(
    [("cards", "=u8"), ("kind", "u1"), ("rank", "u1"), ("length", "u1"),
     ("wild", "u1"), ("substitutes", "=u4")],
    align=True,
)
if MOVE_DTYPE.itemsize != sizeof(ddz_move):
    raise ImportError("MOVE_DTYPE does not match the core's move layout")
# MOVE_DTYPE and numpy's row type as C globals: read without a lookup of a
# module attribute on each call
cdef object _MOVE_DESCR = MOVE_DTYPE
cdef object _VOID = np.void
if (_WILD_NONE, _WILD_KICKER) != (WILD_NONE, WILD_KICKER):
    raise ImportError("ddzfast.constants disagrees with the core's wild codes")

cdef object _KINDS = tuple(MoveKind)
cdef tuple _KIND_NAMES = tuple(k.name for k in MoveKind)
cdef dict _CHAR_INDEX = {c: i for i, c in enumerate(CARD_CHARS)}
_CHAR_INDEX.update({c.lower(): i for i, c in enumerate(CARD_CHARS)})
cdef dict _KIND_BY_NAME = {k.name: k for k in MoveKind}


cdef uint64_t _parse_cards(str text) except? 0xFFFFFFFFFFFFFFFF:
    cdef uint64_t bits = 0
    cdef Py_ssize_t i = 0, n = len(text)
    cdef object idx
    while i < n:
        ch = text[i]
        if ch == "1" and i + 1 < n and text[i + 1] == "0":
            idx = 7
            i += 2
        elif ch in " ,+":
            i += 1
            continue
        else:
            idx = _CHAR_INDEX.get(ch)
            if idx is None:
                raise InvalidCardsError(
                    f"unknown card {ch!r} at position {i} of {text!r}; "
                    f"cards are {CARD_CHARS} ('10' for T, lower case accepted; "
                    f"spaces, commas and '+' are skipped)")
            i += 1
        if (bits >> (4 * <int>idx)) & 15 == 15:
            raise InvalidCardsError(f"too many {CARD_CHARS[idx]!r} in {text!r}")
        bits += (<uint64_t>1) << (4 * <int>idx)
    return bits


# CARD_CHARS and CARD_LIMITS by card index as C arrays, filled from
# ddzfast.constants at import: the card text and the deck checks of every
# call read them without Python objects
cdef char _CARD_CHAR[16]
cdef uint8_t _CARD_LIMIT[16]


cdef int _fill_card_tables() except -1:
    cdef int i
    if len(CARD_CHARS) != 16 or len(CARD_LIMITS) != 16:
        raise ImportError("ddzfast.constants: 16 card indexes expected")
    for i in range(16):
        _CARD_CHAR[i] = ord(CARD_CHARS[i])
        _CARD_LIMIT[i] = CARD_LIMITS[i]
    return 0


_fill_card_tables()


cdef str _cards_text(uint64_t bits):
    # (15 cards at most of each of the 16 card indexes)
    cdef char text[240]
    cdef int i, k, n = 0
    for i in range(16):
        k = _nib(bits, i)
        while k:
            text[n] = _CARD_CHAR[i]
            n += 1
            k -= 1
    return text[:n].decode("ascii")


cdef str _deck_problem(uint64_t bits, Rules rules):
    # Why `bits` is not a hand of this deck (None when it is one).
    cdef int i, k
    for i in range(16):
        k = _nib(bits, i)
        if k > _CARD_LIMIT[i]:
            return f"{k} of {CARD_CHARS[i]!r} (a deck has {CARD_LIMITS[i]})"
    if rules is not None and (bits & WBIT) and not rules.c.has_wild:
        return f"a wildcard W, which the {rules.name!r} deck does not have"
    return None


cdef uint64_t _add_within_deck(uint64_t total, uint64_t more, Rules r,
                               str what) except? 0xFFFFFFFFFFFFFFFF:
    """total + more, when together they fit a deck (the rule set's, when
    given: W only where it has one), else InvalidCardsError."""
    cdef int i
    for i in range(16):
        if _nib(total, i) + _nib(more, i) > _CARD_LIMIT[i]:
            raise InvalidCardsError(
                f"{what} hold more {CARD_CHARS[i]!r} than "
                f"{'a' if r is None else 'the ' + repr(r.name)} deck has "
                f"({CARD_LIMITS[i]})")
    if r is not None and (more & WBIT) and not r.c.has_wild:
        raise InvalidCardsError(f"{what} hold a W, which the {r.name!r} deck does "
                                f"not have")
    return total + more


cdef uint64_t _full_deck(Rules r) noexcept:
    # the rule set's whole deck, packed
    cdef uint64_t deck = 0
    cdef int i
    for i in range(16):
        if i < IDX_W or r.c.has_wild:
            deck += (<uint64_t>_CARD_LIMIT[i]) << (4 * i)
    return deck


cdef uint64_t _to_bits(object value, Rules rules, str what) except? 0xFFFFFFFFFFFFFFFF:
    """Packed cards from a Hand, an int or card text, checked against the deck."""
    cdef uint64_t bits
    cdef str problem
    if type(value) is Hand:
        bits = (<Hand>value).bits
    elif isinstance(value, str):
        # (a subclass of str, numpy's str_ among them, as its text)
        bits = _parse_cards(value if type(value) is str else str.__str__(value))
    elif type(value) is int or (isinstance(value, (int, np.integer))
                                and not isinstance(value, (bool, np.bool_))):
        # (a plain int tested first: numpy's types are module attributes,
        # looked up on each call)
        if value < 0 or value >= 1 << 64:
            raise InvalidCardsError(
                f"{what} {value!r} is not a packed hand (0 <= value < 2**64)")
        bits = <uint64_t>value
    elif isinstance(value, Hand):
        bits = (<Hand>value).bits
    else:
        raise TypeError(f"{what} must be a Hand, a packed int or card text, "
                        f"not {type(value).__name__}")
    if rules is None:
        if _deck_problem(bits, None) is None:
            return bits
    elif ddz_hand_valid(&rules.c, bits):
        return bits
    problem = _deck_problem(bits, rules)
    raise InvalidCardsError(f"{what} {_cards_text(bits) or '(empty)'!r} holds {problem}")


# ---- rule sets -------------------------------------------------------------------

_RULE_FIELDS = frozenset({
    "wildcard", "kinds", "tiers", "ranked", "wild_joker_kind", "wild_joker_stands",
    "xdw_kind", "four_wild_kind", "kitty", "multipliers", "wild_max_rank",
    "mult_cap", "service_fee", "deal_cap", "laizi", "wild_rank", "wild_count",
    "wild_ranks", "size_tiers", "pure_step"}) | frozenset(PLATFORM_DEFAULTS)


cdef int _kind_field(object value, str field) except -1:
    # A move kind named in a rule-set field; 0 for None.
    if value is None:
        return 0
    if not isinstance(value, str):
        raise TypeError(f"{field}: a move kind is a name such as 'BOMB', not {value!r}")
    if value == "PASS":
        # (a kind of every rule set, which none lists: no field may name it)
        raise ValueError(f"{field}: PASS is not a kind a rule set's fields name")
    if value not in _KIND_BY_NAME:
        raise ValueError(f"{field}: unknown move kind {value!r}")
    return int(_KIND_BY_NAME[value])


cdef list _kind_names(object value, str field):
    # A sequence of kind names (not a bare string, not a mapping).
    if isinstance(value, (str, bytes)) or isinstance(value, collections.abc.Mapping) \
            or not isinstance(value, collections.abc.Iterable):
        raise TypeError(f"{field} must be a sequence of move-kind names, not {value!r}")
    return [_kind_field(v, field) for v in value]


cdef dict _kind_ints(object value, str field, int lo, int hi):
    # A mapping kind name -> int in lo..hi.
    cdef dict out = {}
    if not isinstance(value, collections.abc.Mapping):
        raise TypeError(f"{field} must be a mapping of move-kind names to ints, "
                        f"not {value!r}")
    for name, v in value.items():
        k = _kind_field(name, field)
        out[k] = _int_field(v, f"{field}[{name!r}]", lo, hi)
    return out


cdef bint _is_integral(object value) except -1:
    # An exact int is told first, as the ABC check costs more than most of
    # what it guards
    return type(value) is int or (isinstance(value, numbers.Integral)
                                  and not isinstance(value, (bool, np.bool_)))


cdef object _int_field(object v, str field, object lo, object hi):
    if not _is_integral(v):
        raise TypeError(f"{field} must be an int, not {v!r}")
    if not lo <= v <= hi:
        raise ValueError(f"{field} must be in {lo}..{hi}, not {v}")
    return int(v)


cdef object _bool_field(object v, str field):
    if not isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{field} must be True or False, not {v!r}")
    return bool(v)


cdef double _real_field(object v, str field) except? -1.0:
    # (+ 0.0 makes -0.0 0.0: the struct's bytes, which rules_id reads, then
    # agree for equal values)
    return check_finite(v, field) + 0.0


_RULES_IDS = itertools.count()    # next() is atomic: ids are unique across threads
# One id per compiled rule set: Rules objects that compile to the same struct
# (the same behaviour in the core) share it, so cached readings of W and
# position keys carry over between them.
cdef dict _RULES_ID_BY_STRUCT = {}
# One Rules per rules_id, for the moves that refer to their rule set by id
# (as many as _RULES_ID_BY_STRUCT holds structs).
cdef dict _RULES_BY_ID = {}


cdef object _frozen(object value):
    # A description value no one can change in place: a mapping read-only with
    # its values frozen, a list or a tuple a tuple of frozen items, a set a
    # frozenset; a NumPy scalar or array its Python value (which repr, JSON
    # and other processes read without NumPy).
    if isinstance(value, collections.abc.Mapping):
        return MappingProxyType({_frozen(k): _frozen(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, collections.abc.Set):
        return frozenset(_frozen(v) for v in value)
    if isinstance(value, (np.generic, np.ndarray)):
        return _frozen(value.tolist())
    return value


cdef object _thawed(object value):
    # _frozen's inverse: new dicts and lists the caller may change (and pickle)
    if isinstance(value, collections.abc.Mapping):
        return {k: _thawed(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_thawed(v) for v in value]
    if isinstance(value, frozenset):
        return set(value)
    return value


cdef class Rules:
    """A rule set compiled for the core. ``Rules("classic")`` (or the name alone,
    wherever rules are asked for; any name ``get_rules`` reads) gives one of
    the built-in sets; a new set is ``Rules(name, **description)`` with the
    fields of ddzfast.rulesets (a whole description: a field left out reads
    as its default, not as the built-in set's; ``with_options`` changes
    some fields of a rule set).

    Immutable: every field is checked when the rule set is made, and a made
    rule set is never recompiled (``with_options`` makes a new one).

    Two Rules are equal (and hash alike) when they compile to the same rule
    set, their ``rules_id``: ``get_rules("classic+happy")`` equals classic
    with those options set by ``with_options``, and a pickled rule set
    equals the one pickled. Their names may differ.

    ``repr`` is code that makes an equal rule set of the same name:
    ``Rules('laizi:7')``, ``Rules('classic').without_kinds('BOMB')
    .with_options(deal_cap=96)``, or the constructor with the whole
    description for a name of one's own.

    ``fingerprint`` is a 64-bit digest of the compiled rule set: equal for
    equal rule sets, and the same in every process running one build of
    ddzfast (``rules_id`` numbers rule sets in the order a process makes
    them), which is why position keys carry it.

    Each different compiled rule set gets a ``rules_id`` that the process
    keeps to its end (the struct's few hundred bytes, and for a laizi or
    tiandi rule set the first Rules of that id, which its moves' text and
    pickles read), so that equal rule sets made at different times share
    their caches and position keys: a program that makes a great many
    different rule sets (a sweep over a scoring option, say) holds all of
    them."""


    def __cinit__(self):
        # (an id no made rule set has: Rules.__new__(Rules) equals none)
        self.rules_id = -1

    def __init__(self, name, **description):
        if self._ready:
            raise TypeError("Rules are immutable: make a new one (Rules(...) or "
                            "with_options) rather than calling __init__ again")
        if not isinstance(name, str):
            raise TypeError(f"a rule set's name is a str, not {name!r}")
        name = str(name)        # a subclass of str (NumPy's str_): its text
        if not description:
            if name in RULE_SETS:
                description = RULE_SETS[name]
            else:
                # any name get_rules reads ("laizi:7", "classic+happy"), as
                # the name alone is taken wherever rules are asked for
                named = _get_rules(name)
                name, description = named.name, named.description_dict()
        # a one-pass iterable (a generator of kind names) is read once, here:
        # the compiler and the description each read it whole
        description = {k: tuple(v) if isinstance(v, collections.abc.Iterator) else v
                       for k, v in description.items()}
        self._compile(description)
        self.name = name
        # the wild ranks as card characters, however they were spelled
        # ('10', 't', 7): equal rule sets have equal descriptions, which
        # the action tables' keys and repr read
        if description.get("wild_rank") is not None:
            description = {**description, "wild_rank":
                           CARD_CHARS[_wild_rank_index(description["wild_rank"])]}
        if description.get("wild_ranks") is not None:
            description = {**description, "wild_ranks": tuple(
                CARD_CHARS[k] for k in _wild_rank_pair(description["wild_ranks"]))}
        # read-only all through: changing it would not recompile the rule
        # set, and it must not share a mutable part with the description it
        # came from (RULE_SETS' own)
        self.description = _frozen(description)
        compiled = (<char*>&self.c)[:sizeof(ddz_rules)]
        rules_id = _RULES_ID_BY_STRUCT.get(compiled)
        if rules_id is None:
            rules_id = _RULES_ID_BY_STRUCT.setdefault(compiled, next(_RULES_IDS))
        self.rules_id = rules_id
        # (ids go by the order a process makes rule sets; a digest of the
        # same bytes is the same in every process of one build)
        self.fingerprint = int.from_bytes(
            hashlib.blake2b(compiled, digest_size=8).digest(), "little")
        # a laizi move's text and pickle need its wild rank, and a move legal
        # in no built-in rule set needs its own (see Move); one of a built-in
        # rule set's name first: a move's repr names the rule set it is legal
        # in, which a name of one's own is not
        held = _RULES_BY_ID.setdefault(rules_id, self)
        if not _builtin_named(held) and _builtin_named(self):
            _RULES_BY_ID[rules_id] = self
        self._ready = True

    cdef _compile(self, dict d):
        # Every field is checked before the struct is written, so a failed
        # description leaves nothing half-made.
        cdef ddz_rules c
        cdef int k, sz, lo, hi
        unknown = set(d) - _RULE_FIELDS
        if unknown:
            raise ValueError(f"unknown rule-set fields: {sorted(unknown)}")
        memset(&c, 0, sizeof(ddz_rules))
        c.allowed[K_PASS] = 1
        for k in _kind_names(d.get("kinds", ()), "kinds"):
            c.allowed[k] = 1
        if not c.allowed[K_SINGLE]:
            raise ValueError("kinds must include SINGLE: without it a hand may "
                             "have no legal lead and a deal could never end")
        for k, v in _kind_ints(d.get("tiers", {}), "tiers", 1, 255).items():
            c.tier[k] = v
        for k in _kind_names(d.get("ranked", ()), "ranked"):
            if not c.tier[k]:
                raise ValueError(f"ranked: {MoveKind(k).name} has no bomb tier, so "
                                 f"it is ranked like any plain move already")
            c.ranked[k] = 1
        c.has_wild = _bool_field(d.get("wildcard", False), "wildcard")
        c.wild_joker_kind = _kind_field(d.get("wild_joker_kind"), "wild_joker_kind")
        c.wild_joker_stands = _bool_field(d.get("wild_joker_stands", False),
                                          "wild_joker_stands")
        c.xdw_kind = _kind_field(d.get("xdw_kind"), "xdw_kind")
        c.four_wild_kind = _kind_field(d.get("four_wild_kind"), "four_wild_kind")
        # W stands for ranks 3..2 (0..12) at most in a main part.
        c.wild_max_rank = _int_field(d.get("wild_max_rank", 12), "wild_max_rank", 0, 12)
        leftover = 54 + c.has_wild - 3 * DEAL_CARDS
        kitty = _int_field(d.get("kitty", leftover), "kitty", 0, 4)
        if kitty != leftover:
            raise ValueError(f"kitty: {kitty} cards, but the deck leaves {leftover} "
                             f"after dealing 3 x {DEAL_CARDS}")
        c.kitty = kitty
        for k, v in _kind_ints(d.get("multipliers", {}), "multipliers", 1, 255).items():
            # a factor of 1 is no factor, as for a kind left out: the two
            # descriptions make one rule set
            c.mult[k] = v if v > 1 else 0
        cap = d.get("mult_cap")
        c.mult_cap = 0 if cap is None else _int_field(cap, "mult_cap", 1, 2 ** 62)
        c.service_fee = _real_field(d.get("service_fee", 0.0), "service_fee")
        if not 0.0 <= c.service_fee < 1.0:
            raise ValueError(f"service_fee is a share of each winner's gain, "
                             f"0 <= fee < 1, not {c.service_fee}")
        deal_cap = d.get("deal_cap")
        c.deal_cap = 0.0 if deal_cap is None else _real_field(deal_cap, "deal_cap")
        if deal_cap is not None and not c.deal_cap > 0:
            raise ValueError(f"deal_cap must be positive (or None), not {deal_cap}")
        for k in (c.wild_joker_kind, c.xdw_kind, c.four_wild_kind):
            if k and not c.allowed[k]:
                raise ValueError(f"{MoveKind(k).name} is used but not in kinds")
            if k and not ddz_is_special(k):
                raise ValueError(f"{MoveKind(k).name} cannot be a wildcard special")
        if (c.wild_joker_kind or c.xdw_kind or c.four_wild_kind) and not c.has_wild:
            raise ValueError("wildcard kinds given for a deck without W")
        c.laizi = _bool_field(d.get("laizi", False), "laizi")
        wild_rank = d.get("wild_rank")
        wild_ranks = d.get("wild_ranks")
        c.sky_rank = 255
        c.wild_count = _int_field(d.get("wild_count", 1), "wild_count", 1, 2)
        if c.laizi:
            if c.has_wild:
                raise ValueError("a laizi rule set has no W: its wildcards are the "
                                 "cards of the wild rank (wildcard=False)")
            if c.wild_count == 1:
                if wild_ranks is not None:
                    raise ValueError("wild_ranks is for rule sets of two wild ranks "
                                     "(wild_count=2); this one takes wild_rank")
                if wild_rank is not None:
                    c.wild_mask = 1 << _wild_rank_index(wild_rank)
            else:
                if wild_rank is not None:
                    raise ValueError("a rule set of two wild ranks takes wild_ranks="
                                     "(sky, ground), not wild_rank")
                if wild_ranks is not None:
                    ranks = _wild_rank_pair(wild_ranks)
                    if ranks:
                        c.sky_rank = ranks[0]
                    for k in ranks:
                        c.wild_mask |= 1 << k
        else:
            if wild_rank is not None or wild_ranks is not None:
                raise ValueError("wild_rank and wild_ranks are for laizi rule sets "
                                 "(laizi=True)")
            if c.wild_count != 1:
                raise ValueError("wild_count is for laizi rule sets (laizi=True)")
            for k in (K_SOFT_BOMB, K_LAIZI_BOMB):
                if c.allowed[k]:
                    raise ValueError(f"{MoveKind(k).name} exists only in laizi rule "
                                     f"sets (laizi=True)")
        c.bomb_max[K_SOFT_BOMB] = 4
        c.bomb_max[K_LAIZI_BOMB] = 4
        size_tiers = d.get("size_tiers", {})
        if not isinstance(size_tiers, collections.abc.Mapping):
            raise TypeError(f"size_tiers must map kind names to {{size: tier}}, "
                            f"not {size_tiers!r}")
        for name, by_size in size_tiers.items():
            k = _kind_field(name, "size_tiers")
            if k not in (K_SOFT_BOMB, K_LAIZI_BOMB):
                raise ValueError(f"size_tiers: only SOFT_BOMB and LAIZI_BOMB grow "
                                 f"with their size, not {name}")
            if not c.tier[k]:
                raise ValueError(f"size_tiers: {name} has no bomb tier")
            if not isinstance(by_size, collections.abc.Mapping) or not by_size:
                raise TypeError(f"size_tiers[{name!r}] must map sizes to tiers, "
                                f"not {by_size!r}")
            sizes = [_int_field(sz, f"size_tiers[{name!r}] size", 4, 12) for sz in by_size]
            if sorted(sizes) != list(range(4, max(sizes) + 1)):
                raise ValueError(f"size_tiers[{name!r}]: sizes must run from 4 up "
                                 f"without a gap, not {sorted(sizes)}")
            if k == K_LAIZI_BOMB and max(sizes) > 8:
                raise ValueError("size_tiers: a LAIZI_BOMB holds at most 8 cards")
            c.size_tiered[k] = 1
            c.bomb_max[k] = max(sizes)
            for sz, v in by_size.items():
                c.size_tier[k][sz] = _int_field(v, f"size_tiers[{name!r}][{sz}]", 1, 255)
        if (c.bomb_max[K_SOFT_BOMB] > 4 or c.bomb_max[K_LAIZI_BOMB] > 4) \
                and not _two_wild_ranks(&c):
            raise ValueError("size_tiers: bombs of more than four cards need two "
                             "wild ranks (wild_count=2)")
        c.pure_step = _int_field(d.get("pure_step", 0), "pure_step", 0, 255)
        _compile_platform(&c, d)
        for k in range(1, NKINDS):
            if c.allowed[k] and c.tier[k]:
                c.tiered[c.ntiered] = k
                c.ntiered += 1
            if c.size_tiered[k]:
                lo, hi = 255, 0
                for sz in range(4, c.bomb_max[k] + 1):
                    lo = min(lo, c.size_tier[k][sz])
                    hi = max(hi, c.size_tier[k][sz])
                c.size_tier_lo[k] = lo
                c.size_tier_hi[k] = hi + (c.pure_step if k == K_LAIZI_BOMB else 0)
        memcpy(&self.c, &c, sizeof(ddz_rules))   # padding included: the bytes are its id

    @property
    def platform(self) -> dict:
        """The platform options of this rule set (RULES.md section 10), every
        one of PLATFORM_DEFAULTS with its value here."""
        _made(self)
        return {k: self.description.get(k, v) for k, v in PLATFORM_DEFAULTS.items()}

    @property
    def wildcard(self) -> bool:
        """The deck holds one W."""
        return bool(self.c.has_wild)

    @property
    def laizi(self) -> bool:
        """A laizi rule set (RULES.md section 8): a wild rank's cards are wild."""
        return bool(self.c.laizi)

    @property
    def wild_rank(self):
        """The laizi rank as a card index (0 = '3' ... 12 = '2'), or None (not a
        laizi rule set of one wild rank, or no rank drawn yet)."""
        if self.c.wild_count != 1:
            return None
        return _ctz(self.c.wild_mask) if self.c.wild_mask else None

    @property
    def ranked_name(self) -> str:
        """The name with the wild ranks drawn, as ``get_rules`` reads it
        (``"laizi:7"``, ``"tiandi:7J+happy"``; ``name`` itself when it has
        none). Options set by ``with_options`` and kinds left out by
        ``without_kinds`` are not in it: ``repr`` tells them. A tiandi rule
        set with its sky rank alone (a deal's before the kitty is taken)
        reads ``"tiandi:7"``, which ``get_rules`` does not take: that rule
        set generates nothing. Nor does it take the name of a rule set given
        wild ranks its built-in name has none of (``"classic:7"`` for
        classic with ``laizi=True, wild_rank="7"``); ``repr`` makes those."""
        _made(self)
        return _name_with_ranks(self)

    @property
    def wild_count(self) -> int:
        """How many wild ranks a deal draws (laizi 1, tiandi 2; 1 elsewhere)."""
        return self.c.wild_count

    @property
    def wild_ranks(self) -> tuple:
        """The wild ranks drawn so far as card indices, the sky rank first in
        a rule set of two (``("7", "J")`` gives ``(4, 8)``); () when none."""
        cdef unsigned int m = self.c.wild_mask
        if self.c.wild_count == 1:
            return (_ctz(m),) if m else ()
        if self.c.sky_rank == 255:
            return ()
        cdef int sky = self.c.sky_rank
        m &= ~(1u << sky)
        if m:
            return (sky, _ctz(m))
        return (sky,)

    @property
    def ready(self) -> bool:
        """The rule set can generate moves: not a laizi rule set, or all its
        wild ranks are drawn."""
        return bool(_rules_ready(&self.c))

    @property
    def kinds(self):
        """The move kinds of this rule set, PASS included."""
        return frozenset(k for k in MoveKind if self.c.allowed[k])

    def tier(self, kind) -> int:
        """The bomb tier of a kind (0 for plain moves): nonzero marks a bomb
        kind. In tiandi a bomb's tier also depends on its size and purity
        (RULES.md 9, ``size_tiers`` and ``pure_step``), so there this is the
        tier of the kind's 4-card bombs (the ROCKET's is above every size);
        ``beats`` compares whole moves."""
        return self.c.tier[_kind_code(kind)]

    def with_options(self, **changes) -> Rules:
        """A copy of this rule set with some fields changed, e.g.
        ``get_rules("super").with_options(service_fee=0.05, deal_cap=96)``."""
        _made(self)
        return Rules(self.name, **{**self.description, **changes})

    @property
    def kitty(self) -> int:
        """Cards in the kitty."""
        return self.c.kitty

    @property
    def address(self) -> int:
        """The address of the compiled ``ddz_rules`` struct, for C and Numba
        callers (ddzfast.numba): a raw pointer, valid only while this Rules
        object is alive (the built-in rule sets live as long as the module)."""
        return <size_t>&self.c

    def __repr__(self):
        # Code that makes an equal rule set: the built-in rule set or preset
        # of its name (with its wild ranks when they make a name) and what
        # sets it apart (_rules_changes) as without_kinds and with_options;
        # when those calls cannot make it (a name of its own, fields left
        # out of the description), the constructor with the whole
        # description
        if not self._ready:
            return "<Rules never made: Rules(name, ...) makes one>"
        changes = _rules_changes(self)
        if changes is not None and not changes[3]:
            text = _changes_code(self, changes)
            if text is not None:
                return text
        args = [repr(self.name)]
        args += [f"{k}={v!r}" for k, v in self.description_dict().items()]
        return f"Rules({', '.join(args)})"

    def __eq__(self, other):
        # equal when they compile to the same rule set (what every layer
        # reads), whatever their names or how their fields were spelled
        if not isinstance(other, Rules):
            return NotImplemented
        if not (self._ready and (<Rules>other)._ready):
            return self is other    # (never made: equal to itself alone)
        return self.rules_id == (<Rules>other).rules_id

    def __hash__(self):
        return hash(("Rules", self.rules_id))

    def __copy__(self):
        return self     # immutable: a copy is the same rule set

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        # the built-in rule set of this name (what get_rules gives back),
        # compared by its description frozen once, at import
        builtin = _RULES.get(self.name)
        if builtin is not None and (builtin is self
                                    or self.description == (<Rules>builtin).description):
            return (get_rules, (self.name,))    # the built-in object itself
        return (_rules_from_description, (self.name, self.description_dict()))

    def description_dict(self) -> dict:
        """The description as new, plain dicts and lists, which the caller may
        change: ``Rules(name, **d)`` makes the changed rule set."""
        _made(self)
        return _thawed(self.description)

    def without_kinds(self, *kinds) -> Rules:
        """A copy of this rule set in which the move kinds ``kinds`` (names
        such as ``"TRIPLE_PAIR"``, or MoveKinds) do not exist, as puzzles ban
        3+2 or 4+2. Each is taken out of every field that names it:
        ``kinds``, ``tiers``, ``ranked``, ``multipliers`` and ``size_tiers``;
        ``wild_joker_kind``, ``xdw_kind`` or ``four_wild_kind`` becomes None
        (with it ``wild_joker_stands`` False), and ``pure_step``, which only
        LAIZI_BOMB reads, 0. A kind the rule set lacks is no change. Kinds
        are read as ``tier`` reads them (names in any case, MoveKinds, their
        ints). ValueError for an unknown kind, PASS or SINGLE (without it a
        hand may have no lead); TypeError for a kind that is no name or
        MoveKind."""
        _made(self)
        names = set()
        for k in kinds:
            try:
                code = _kind_code(k)
            except (TypeError, ValueError) as e:
                raise type(e)(f"without_kinds: {e}") from None
            if code == K_PASS:
                raise ValueError("without_kinds: PASS is not a kind a rule set's fields "
                                 "name (it is a move of every rule set)")
            names.add(MoveKind(code).name)
        if "SINGLE" in names:
            raise ValueError("without_kinds: SINGLE cannot go: without it a hand "
                             "may have no legal lead and a deal could never end")
        d = self.description_dict()
        d["kinds"] = [k for k in d.get("kinds", ()) if k not in names]
        d["ranked"] = [k for k in d.get("ranked", ()) if k not in names]
        for field in ("tiers", "multipliers", "size_tiers"):
            if field in d:
                d[field] = {k: v for k, v in d[field].items() if k not in names}
        for field in ("wild_joker_kind", "xdw_kind", "four_wild_kind"):
            if d.get(field) in names:
                d[field] = None
                if field == "wild_joker_kind":
                    d["wild_joker_stands"] = False
        if "LAIZI_BOMB" in names and "pure_step" in d:
            d["pure_step"] = 0
        return Rules(self.name, **d)


cdef object _choice_field(object v, str field, tuple choices):
    # One of a few strings (or, for doubling, False/True too: NumPy's bools
    # as _bool_field takes them).
    if isinstance(v, np.bool_):
        v = bool(v)
    elif isinstance(v, str):
        v = str(v)          # a subclass of str (NumPy's str_): its text
    for c in choices:
        if type(v) is type(c) and v == c:
            return c
    raise (ValueError if isinstance(v, (str, bool)) else TypeError)(
        f"{field} is one of {', '.join(map(repr, choices))}, not {v!r}")


cdef int _compile_platform(ddz_rules* c, dict d) except -1:
    # The options of RULES.md section 10 into *c (each checked; absent: off).
    opt = {**PLATFORM_DEFAULTS, **{k: d[k] for k in PLATFORM_DEFAULTS if k in d}}.__getitem__
    c.rob = _choice_field(opt("bidding"), "bidding", ("points", "rob")) == "rob"
    c.no_call_first = _choice_field(opt("no_call"), "no_call", ("redeal", "first")) == "first"
    c.rob_base = _int_field(opt("rob_base"), "rob_base", 1, 100)
    c.show = _bool_field(opt("show"), "show")
    doubling = _choice_field(opt("doubling"), "doubling", (False, True, "after_farmer"))
    c.doubling = 2 if doubling == "after_farmer" else (1 if doubling else 0)
    cap = opt("cap")
    c.stake_cap = 0 if cap is None else _int_field(cap, "cap", 1, 2 ** 62)
    c.no_shuffle = _choice_field(opt("deal"), "deal", ("shuffle", "no_shuffle")) == "no_shuffle"
    c.session = _int_field(opt("session"), "session", 1, 2 ** 31 - 1)
    c.swaps = _int_field(opt("swaps"), "swaps", 0, 255)
    return 0


cdef Rules _preset_rules(str name):
    # The rule set of a name "<rule set>+<preset>" ("classic+happy",
    # "laizi:7+happy"), or None when the name has no preset suffix.
    cdef Rules base
    base_name, sep, preset = name.rpartition("+")
    if not sep:
        return None
    if preset not in PLATFORM_PRESETS:
        raise ValueError(f"unknown platform preset {preset!r} in {name!r}; presets: "
                         f"{', '.join(PLATFORM_PRESETS)}")
    if "+" in base_name:
        # (each further one would be a name, and a kept Rules, of its own)
        raise ValueError(f"{name!r}: one platform preset a name ('classic+happy')")
    r = _RULES_WITH_RANK.get(name)
    if r is None:
        base = _get_rules(base_name)
        # named as the ranked rule sets are, without their wild ranks
        # ("laizi:7+happy" is "laizi+happy" with the wild rank 7), which the
        # rule set holds as fields
        r = _RULES_WITH_RANK.setdefault(name, Rules(
            f"{base.name}+{preset}", **{**base.description, **PLATFORM_PRESETS[preset]}))
    return <Rules>r


def _rules_from_description(name, description):
    return Rules(name, **description)


cdef int _wild_rank_index(object value, str what="wild_rank") except -1:
    # A laizi rank: a card character of 3..2 ('10' for T) or an index 0..12;
    # `what` names it in messages (one of tiandi's pair: "each of wild_ranks")
    cdef int idx
    if isinstance(value, str):
        if len(value) > 1 and value != "10":
            hint = (" (a rule set of two wild ranks, tiandi, takes them as wild_ranks)"
                    if what == "wild_rank" else "")
            raise ValueError(f"{what} is one rank of 3..2 ('7'), not {value!r}{hint}")
        idx = _card_index(value)
    elif isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        idx = value if 0 <= value < 16 else 99
    else:
        raise TypeError(f"{what} must be a card of 3..2 ('7') or its index, "
                        f"not {value!r}")
    if not 0 <= idx <= 12:
        raise ValueError(f"{what} must be a rank of 3..2 (index 0..12), not {value!r}")
    return idx


cdef tuple _wild_rank_pair(object value):
    # wild_ranks of a rule set of two: (sky, ground) or (sky,) as card
    # indices, distinct
    if isinstance(value, str):
        # text of the wrong number of ranks is a bad value, not a bad type
        chars = _rank_chars(value)
        if not 1 <= len(chars) <= 2:
            raise ValueError(f"wild_ranks as text is one or two ranks, sky then "
                             f"ground, e.g. '7J' (or '7' before the ground rank "
                             f"is drawn), not {value!r}")
        value = chars
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"wild_ranks must be (sky, ground), e.g. ('7', 'J'), or "
                        f"(sky,) before the ground rank is drawn, not {value!r}")
    if not 1 <= len(value) <= 2:
        # a sequence of the wrong length is a bad value, as text of one is
        raise ValueError(f"wild_ranks holds one or two ranks, (sky, ground), e.g. "
                         f"('7', 'J'), or (sky,) before the ground rank is drawn, "
                         f"not {len(value)}: {value!r}")
    ranks = tuple(_wild_rank_index(v, "each of wild_ranks") for v in value)
    if len(ranks) == 2 and ranks[0] == ranks[1]:
        raise ValueError(f"the sky and ground ranks must differ, not both "
                         f"{CARD_CHARS[ranks[0]]!r}")
    return ranks


cdef list _rank_chars(str text):
    # "7J" or "10J" as the rank characters in order
    cdef list out = []
    cdef Py_ssize_t i = 0
    while i < len(text):
        if text[i] == "1" and text[i + 1:i + 2] == "0":
            out.append("10")
            i += 2
        else:
            out.append(text[i])
            i += 1
    return out


def _ranked_name(str name, str ranks) -> str:
    """The name of the rule set `name` with its wild ranks `ranks` (laizi's
    one, tiandi's sky then ground): "laizi+happy", "7" -> "laizi:7+happy"."""
    base, plus, preset = name.partition("+")
    return f"{base}:{ranks}{plus}{preset}"


cdef bint _builtin_named(Rules r):
    # whether r's name is a built-in rule set's, perhaps with a preset
    return _unranked_name(r).partition("+")[0] in RULE_SETS


cdef str _unranked_name(Rules r):
    # r's name without the wild ranks a name may carry ("laizi:7+happy" ->
    # "laizi+happy"): the name of the built-in rule set or preset it is of
    base, plus, preset = r.name.partition("+")
    return base.partition(":")[0] + plus + preset


cdef str _name_with_ranks(Rules r):
    # r's name with the wild ranks it has, as get_rules reads it ("laizi:7",
    # "tiandi:7J+happy")
    cdef str name = _unranked_name(r)
    if r.c.wild_mask:
        name = _ranked_name(name, "".join(CARD_CHARS[k] for k in r.wild_ranks))
    return name


cdef object _move_rules_name(Rules r, Move move):
    # The name a laizi move's repr gives, legal only with its wild ranks: a
    # built-in name r is of, with its ranks, when that name makes the move
    # again (the kinds and options a copy changes make no move legal that
    # the built-in rule set with those ranks refuses); else the first
    # built-in rule set with r's ranks that does. None: none does.
    if _builtin_named(r) and _names_the_move(_name_with_ranks(r), move):
        return _name_with_ranks(r)
    ranks = "".join(CARD_CHARS[k] for k in r.wild_ranks)
    for base in RULE_SETS:
        if _get_rules(base).c.wild_count != r.c.wild_count:
            continue
        name = _ranked_name(base, ranks)
        if _names_the_move(name, move):
            return name
    return None


cdef bint _names_the_move(str name, Move move):
    # whether Move.parse(move.text, name) makes the move again, its reading
    # of the laizi included (a name like "classic:7", of a description of
    # one's own named after a built-in one, is no rule set get_rules makes)
    try:
        again = Move.parse(move.text, name)
    except (TypeError, ValueError):
        return False
    return again == move and _reads_alike(_get_rules(name), &move.m)


cdef tuple _rules_changes(Rules r):
    # What sets r apart from the built-in rule set or preset of its name
    # beyond its wild ranks: the kinds it lacks (in the built-in order), its
    # platform options that differ, every other field that differs from
    # what those two changes make (a description of its own), and the
    # fields that its description leaves out. None when its name is no
    # built-in one.
    try:
        base = _get_rules(_unranked_name(r))
    except ValueError:
        return None
    held = {k.name for k in r.kinds}
    missing = [k for k in base.description["kinds"] if k not in held]
    options = {k: v for k, v in r.platform.items() if base.platform[k] != v}
    try:
        expected = base.without_kinds(*missing) if missing else base
        if options:
            expected = expected.with_options(**options)
    except (TypeError, ValueError):
        # (a description of its own that these two changes cannot make:
        # every field that differs is told)
        expected = base
    mine, theirs = r.description_dict(), expected.description_dict()
    other = {k: v for k, v in mine.items()
             if k not in ("wild_rank", "wild_ranks") and theirs.get(k) != v}
    # (a field left out reads as its default, which may differ)
    absent = tuple(k for k in theirs if k not in mine)
    return missing, options, other, absent


cdef object _changes_code(Rules r, tuple changes):
    # r as calls on a built-in rule set ("Rules('classic').without_kinds(
    # 'BOMB').with_options(deal_cap=96)"), checked by making it: None when
    # they make another rule set (fields that only change together)
    missing, options, other = changes[0], changes[1], changes[2]
    ready = _rules_ready(&r.c)
    name = _name_with_ranks(r) if ready else _unranked_name(r)
    text = f"Rules({name!r})"
    changed = {**options, **other}
    if not ready and r.c.wild_mask:
        # (a tiandi rule set with its sky rank alone has no name)
        changed = {"wild_ranks": r.description["wild_ranks"], **changed}
    try:
        # (a rule set given wild ranks its name takes none of, a classic
        # with laizi=True, has no name get_rules reads)
        made = _get_rules(name)
        if missing:
            made = made.without_kinds(*missing)
            text += f".without_kinds({', '.join(map(repr, missing))})"
        if changed:
            made = made.with_options(**changed)
            text += f".with_options({', '.join(f'{k}={v!r}' for k, v in changed.items())})"
    except (TypeError, ValueError):
        return None
    return text if made == r else None


def _rules_label(Rules r) -> str:
    """How a message saying what is legal names the rule set `r`: its name
    with the wild ranks drawn, quoted as get_rules reads it ("'laizi:7'"),
    then the kinds of the built-in rule set that a copy made by
    without_kinds lacks (" without LAIZI_BOMB") and the other fields of its
    description that differ from that rule set's or are left out: any of
    them may decide what is legal (the platform options do not)."""
    cdef str name = _name_with_ranks(r)
    changes = _rules_changes(r)
    if changes is None:
        return repr(name)
    missing, options, other, absent = changes
    text = repr(name)
    if missing:
        text += f" without {', '.join(missing)}"
    fields = sorted(set(other) | set(absent))
    if fields:
        text += f" (its {', '.join(fields)} changed)"
    return text


# The with_options arguments that messages suggest for the wild ranks.
WILD_RANK_OPTION = "wild_rank='7'"
WILD_RANKS_OPTION = "wild_ranks=('7', 'J')"


def _wild_ranks_hint(Rules r, str option, str ranks, str wrap="{}") -> str:
    """How to give the laizi rule set ``r`` its wild ranks, for a message:
    ``option`` the with_options argument ("wild_rank='7'"), ``ranks`` the
    ranks of a name ("7", "7J"), ``wrap`` where a rule-set argument goes
    ("rules_handle({})"). A rule set that is its name's built-in one (or
    preset) gets that name and get_rules; any other its own with_options,
    since the name would lose what sets it apart."""
    changes = _rules_changes(r)
    if changes is not None and not any(changes):
        return (f"{wrap.format(repr(_ranked_name(r.name, ranks)))} or "
                f"{wrap.format(f'get_rules({r.name!r}).with_options({option})')}")
    return (f"{wrap.format(f'rules.with_options({option})')} on this rule set "
            f"(a name would lose what sets it apart from "
            f"{'the built-in ones' if changes is None else repr(_unranked_name(r))})")


cdef int _need_wild(Rules r) except -1:
    # A laizi rule set generates, classifies and compares only with its wild
    # ranks.
    if _two_wild_ranks(&r.c) and not _rules_ready(&r.c):
        raise ValueError(
            f"the rule set {r.name!r} needs both wild ranks, sky and ground (it "
            f"has {', '.join(CARD_CHARS[k] for k in r.wild_ranks) or 'none'}): use "
            f"{_wild_ranks_hint(r, WILD_RANKS_OPTION, '7J')} (two different ranks "
            f"3..2, sky first)")
    if r.c.laizi and not r.c.wild_mask:
        raise ValueError(
            f"the laizi rule set {r.name!r} has no wild rank yet: use "
            f"{_wild_ranks_hint(r, WILD_RANK_OPTION, '7')} (any rank 3..2)")
    return 0


# Rule sets named "<built-in>:<wild rank>" ("laizi:7"), made on first use.
cdef dict _RULES_WITH_RANK = {}


cdef Rules _ranked_rules(str name):
    # The rule set of a name "laizi:7", or None when the name is not of that form.
    cdef Rules base
    base_name, sep, rank = name.partition(":")
    if not sep or base_name not in RULE_SETS:
        return None
    r = _RULES_WITH_RANK.get(name)
    if r is None:
        base = _RULES[base_name]
        if not base.c.laizi:
            raise ValueError(f"{base_name!r} is not a laizi rule set: it takes no "
                             f"wild rank ({name!r})")
        if _two_wild_ranks(&base.c):
            ranks = _rank_chars(rank)
            if len(ranks) != 2:
                raise ValueError(f"{name!r}: {base_name!r} takes two wild ranks, "
                                 f"sky then ground ('{base_name}:7J')")
            option = {"wild_ranks": tuple(ranks)}
        else:
            if len(_rank_chars(rank)) != 1:
                raise ValueError(f"{name!r}: {base_name!r} takes one wild rank "
                                 f"('{base_name}:7')")
            option = {"wild_rank": rank}
        try:
            made = Rules(base_name, **{**base.description, **option})
        except ValueError as e:
            # (a rank that is no card, or not one of 3..2: say whose)
            raise ValueError(f"{name!r}: {e}") from None
        r = _RULES_WITH_RANK.setdefault(name, made)
    return <Rules>r


cdef dict _RULES = {name: Rules(name) for name in RULE_SETS}
RULES = MappingProxyType(dict(_RULES))


#: The built-in rule sets a move given without rules is tried in: those
#: that need no wild rank drawn (an unranked laizi or tiandi set generates
#: nothing, so their moves are found only with the wild ranks named).
_ANY_RULES = tuple([r for r in _RULES.values()
                    if not (<Rules>r).c.laizi or (<Rules>r).c.wild_mask])


def _any_rules_label() -> str:
    """How a message saying what is legal names _ANY_RULES, and how to name
    a laizi or tiandi rule set."""
    names = ", ".join([r.name for r in _ANY_RULES])
    return (f"any built-in rule set ({names}; for laizi moves pass "
            f"rules='laizi:<wild rank>', for tiandi moves 'tiandi:<sky><ground>')")


# The name asked for last and its Rules, as one tuple: read and replaced
# whole, so a thread switch can never pair one name with another's rules.
cdef tuple _last_named = ("classic", _RULES["classic"])


def _rule_name_forms() -> str:
    """The forms a rule-set name takes, for the error on an unknown one."""
    ranked = ", ".join(
        repr(_ranked_name(name, "7J"[:d.get("wild_count", 1)]))
        for name, d in RULE_SETS.items() if d.get("laizi"))
    return (f"built in: {', '.join(RULE_SETS)}; with wild ranks: {ranked}; "
            f"with a platform preset: "
            f"{', '.join(repr('classic+' + p) for p in PLATFORM_PRESETS)}")


cdef str _RULE_NAME_FORMS = _rule_name_forms()


cdef Rules _get_rules(object rules):
    global _last_named
    cdef tuple cached = _last_named
    if rules is cached[0]:
        return <Rules>cached[1]
    if type(rules) is str:
        r = _RULES.get(rules)
        if r is None:
            r = _preset_rules(rules)
        if r is None:
            r = _ranked_rules(rules)
        if r is None:
            raise ValueError(f"unknown rule set {rules!r}; {_RULE_NAME_FORMS}")
        _last_named = (rules, r)
        return <Rules>r
    if isinstance(rules, Rules):
        _made(<Rules>rules)
        return <Rules>rules
    if isinstance(rules, str):
        # a subclass of str (NumPy's str_): its text
        return _get_rules(str(rules))
    raise TypeError(f"rules must be a rule-set name or a Rules, not {type(rules).__name__}")


cdef int _made(Rules r) except -1:
    # Rules.__new__(Rules) alone has nothing compiled and no description
    if not r._ready:
        raise ValueError("rules is a Rules never made (Rules.__new__ without "
                         "__init__): use get_rules(name) or Rules(name)")
    return 0


def get_rules(rules="classic") -> Rules:
    """The Rules for a name or a Rules.

    A name is a built-in rule set (``RULE_SETS``: "classic", "biegang",
    "super", "laizi", "tiandi"), a laizi rule set with its wild ranks
    ("laizi:7"; "tiandi:7J", sky rank first), or any of those with a platform
    preset as a suffix ("classic+happy", "tiandi:7J+happy";
    ``PLATFORM_PRESETS``).
    """
    return _get_rules(rules)


cdef class Hand:
    """An immutable multiset of cards, packed in one uint64 (nibble i = count
    of card index i of RULES.md, nibble 15 = the wildcard W).

    ``Hand("33W45678")``, ``Hand.parse(text, rules)``, ``Hand(packed_int)``;
    ``int(hand)``, ``str(hand)`` (canonical text) and ``np.asarray(hand)``
    (its uint64) convert back. ``len`` counts cards and iteration yields
    them as characters, while ``hand[card]`` is the count of a card (its
    character or its index 0..15); ``cards in hand`` takes cards as
    ``Hand()`` does, so an int there is a packed hand, not a card index.
    """


    def __init__(self, value=0, rules=None):
        if self._ready:
            raise TypeError("a Hand is immutable: make a new one")
        self.bits = _to_bits(value, None if rules is None else _get_rules(rules), "hand")
        self._ready = True

    @staticmethod
    def parse(text, rules=None) -> Hand:
        """Parse card text (``'334TTJQKA22XDW'``; ``10`` and lower case
        accepted, spaces, commas and ``+`` skipped: ``'333 444+88'``).
        With ``rules``, also check it against that rule set's deck."""
        if not isinstance(text, str):
            raise TypeError(f"Hand.parse takes card text (str), not {type(text).__name__}")
        return _hand(_to_bits(text, None if rules is None else _get_rules(rules), "hand"))

    def validate(self, rules) -> Hand:
        """Return self when it is a hand of the rule set's deck, else raise
        InvalidCardsError (a ValueError)."""
        _to_bits(self, _get_rules(rules), "hand")
        return self

    @property
    def counts(self):
        """The 16 counts (card indices 0..14, then W)."""
        return tuple(_nib(self.bits, i) for i in range(16))

    @property
    def wildcards(self) -> int:
        """How many W the hand holds (0 or 1)."""
        return _nib(self.bits, IDX_W)

    def count(self, card) -> int:
        """How many of one card (``'3'``, ``'T'``, ``'10'``, ``'W'`` or an index 0..15)."""
        return _nib(self.bits, _card_index(card))

    def __getitem__(self, card):
        return _nib(self.bits, _card_index(card))

    def __contains__(self, cards):
        # (_to_bits takes what Hand() takes, and says what it needs otherwise)
        return bool(_hand_contains(self.bits, _to_bits(cards, None, "cards")))

    def __len__(self):
        return _hand_size(self.bits)

    def __bool__(self):
        return self.bits != 0

    def __iter__(self):
        return iter(_cards_text(self.bits))

    def __reversed__(self):
        # (without it, reversed() would read counts by card index)
        return iter(_cards_text(self.bits)[::-1])

    def __array__(self, dtype=None, copy=None):
        # numpy reads a Hand as its packed uint64 (a 0-d array), not as the
        # sequence of its cards' text
        a = np.array(self.bits, dtype=np.uint64)
        if dtype is None:
            return a
        # another number type only if it holds the packed value exactly:
        # astype alone would wrap or round it, and the hand would be another
        b = a.astype(dtype)
        if b.dtype.kind not in "iufO":
            raise TypeError(f"a Hand is a packed integer: not convertible to {b.dtype}")
        if int(b[()]) != self.bits:
            raise ValueError(f"{self!r} is the packed value {self.bits}, which {b.dtype} "
                             f"cannot hold exactly (uint64 can)")
        return b

    def __int__(self):
        return self.bits

    def __index__(self):
        return self.bits

    def __str__(self):
        return _cards_text(self.bits)

    def __repr__(self):
        return f"Hand({_cards_text(self.bits)!r})"

    def __eq__(self, other):
        if isinstance(other, Hand):
            return self.bits == (<Hand>other).bits
        return NotImplemented

    def __hash__(self):
        # a Hand.__new__ not yet given its cards is the empty hand from its
        # first hash on: a later __init__ would change a hashed key
        self._ready = True
        return hash(("Hand", self.bits))

    def __add__(self, other):
        cdef Hand o = Hand(other) if not isinstance(other, Hand) else other
        return _hand(_add_within_deck(self.bits, o.bits, None, f"{self} + {o}"))

    def __sub__(self, other):
        cdef Hand o = Hand(other) if not isinstance(other, Hand) else other
        if not _hand_contains(self.bits, o.bits):
            raise InvalidCardsError(f"{o} is not contained in {self}")
        return _hand(self.bits - o.bits)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        if _deck_problem(self.bits, None) is None:
            return (Hand, (self.bits,))
        # a count no deck holds (a tiandi move's substitutes): as it is
        return (_hand_of_bits, (self.bits,))


def _hand_of_bits(bits) -> Hand:
    """A Hand of any packed counts, unchecked against the decks (how a pickled
    Hand that no deck holds, such as a tiandi move's ``substitutes``, is made
    again). Every function that takes cards still checks them."""
    if isinstance(bits, bool) or not isinstance(bits, int) or not 0 <= bits < 1 << 64:
        raise TypeError(f"packed counts are an int in 0..2**64-1, not {bits!r}")
    return _hand(bits)


cdef int _card_index(object card) except -1:
    if isinstance(card, str):
        if card == "10":
            return 7
        idx = _CHAR_INDEX.get(card)
        if idx is not None and len(card) == 1:
            return idx
        raise InvalidCardsError(f"unknown card {card!r}; cards are {CARD_CHARS}")
    if not isinstance(card, (int, np.integer)) or isinstance(card, (bool, np.bool_)):
        raise TypeError(f"a card is one of {CARD_CHARS!r} or an index 0..15, "
                        f"not {card!r}")
    if 0 <= card < 16:
        return card
    raise InvalidCardsError(f"a card is one of {CARD_CHARS!r} or an index 0..15, "
                            f"not {card!r}")


cdef Hand _hand(uint64_t bits):
    cdef Hand h = Hand.__new__(Hand)
    h.bits = bits
    h._ready = True
    return h


cdef int _small_int(object value, str what, int hi) except -1:
    # An int field of a move (rank, length): 0 <= value <= hi.
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} must be an int, not {value!r}")
    if not 0 <= value <= hi:
        raise ValueError(f"{what} must be in 0..{hi}, not {value}")
    return value


@cython.freelist(64)
cdef class Move:
    """One move: ``kind``, main ``rank`` (a card index), chain ``length``, the
    physical ``cards`` that leave the hand (W included) and ``wild``, the card
    index W stands for in the main part (WILD_KICKER = 15: W is a kicker or
    plays as itself; WILD_NONE = 255: no W). Identity (equality, hashing) is
    (kind, rank, length, cards).

    ``Move(kind, rank, length, cards, wild=None, rules=None)`` checks that
    the move is legal in ``rules`` (None: in some built-in rule set) and
    fills in ``wild`` as that rule set reads it (a ``wild`` given must be
    that reading); ``Move.parse("PAIR/3/1/3W")`` reads
    the text form ``KIND/r/n/cards`` (``Move.text``) with r as a card
    character. Wherever a Move is used with a rule set, the core re-derives
    ``wild`` for that rule set, so a Move never carries a stale reading.
    """


    def __cinit__(self):
        self.wild_rules = -1
        self.m.wild = WILD_NONE     # (Move.__new__ alone: a PASS, no W in it)

    def __init__(self, kind, rank, length, cards, wild=None, rules=None):
        cdef int k = _kind_code(kind)
        cdef int r_ = _small_int(rank, "rank", 15)
        cdef int n_ = _small_int(length, "length", 15)
        cdef uint64_t bits = _to_bits(cards, None, "cards")
        cdef int found = -1, v
        cdef Rules r
        if self.wild_rules >= 0:
            raise TypeError("a Move is immutable: make a new one")
        if wild is not None:
            _small_int(wild, "wild", 255)
        candidates = _ANY_RULES if rules is None else (_get_rules(rules),)
        if rules is not None:
            _need_wild(<Rules>candidates[0])
        for r in candidates:
            v = ddz_check(&r.c, k, r_, n_, bits)
            if v >= 0:
                found = v
                self.wild_rules = r.rules_id
                break
        if found < 0:
            where = _any_rules_label() if rules is None else _rules_label(_get_rules(rules))
            raise IllegalMoveError(
                f"{_cards_text(bits) or '(no cards)'} is not a {MoveKind(k).name} "
                f"of rank {CARD_CHARS[r_]} and length {n_} in {where}")
        if wild is not None and wild != found:
            self.wild_rules = -1
            raise IllegalMoveError(f"wild={wild} does not match the move "
                                   f"({describe_wild(found, ddz_is_special(k)) or 'no W'})")
        self.m.cards = bits
        self.m.kind = k
        self.m.rank = r_
        self.m.length = n_
        self.m.wild = found
        self.m.substitutes = ddz_substitutes(&r.c, k, r_, n_, bits)

    @staticmethod
    def parse(text, rules=None) -> Move:
        """Read ``KIND/r/n/cards`` (``PASS`` alone for a pass), legal in
        ``rules`` (None: in some built-in rule set)."""
        if not isinstance(text, str):
            raise TypeError(f"Move.parse takes text KIND/r/n/cards (str), not "
                            f"{type(text).__name__}")
        text = str.__str__(text)
        if text.strip().upper() == "PASS":
            return Move(MoveKind.PASS, 0, 0, 0, rules=rules)
        parts = text.strip().split("/")
        if len(parts) != 4:
            raise ValueError(f"a move is KIND/r/n/cards, not {text!r}")
        kind, r, n, cards = parts
        if not (n.isascii() and n.isdigit()):
            raise ValueError(f"move length {n!r} is not a count (digits, 0 or more) "
                             f"in {text!r}")
        return Move(kind, _card_index(r), int(n), cards, rules=rules)

    @property
    def kind(self):
        return _KINDS[self.m.kind]

    @property
    def rank(self) -> int:
        return self.m.rank

    @property
    def length(self) -> int:
        return self.m.length

    @property
    def wild(self) -> int:
        return self.m.wild

    @property
    def cards(self) -> Hand:
        return _hand(self.m.cards)

    @property
    def substitutes(self) -> Hand:
        """The cards the laizi of the main part stand for (laizi kickers are
        not recorded, but for tiandi's moves of laizi alone). ``laizi``: only
        laizi standing for another rank (empty when none does). ``tiandi``:
        every laizi of the main part, at the rank it completes, a wild rank
        included (RULES.md 9 does not say which of the two wild ranks fills
        it); a move of laizi alone, read at face value, records each of its
        laizi at its own rank, kickers too; a SOFT_BOMB's rank may count
        up to eight, more than a deck's four, so such a Hand is a value to
        read, not a hand to play."""
        return _hand(_substitute_bits(self.m.substitutes))

    @property
    def array(self):
        """The move as a one-row, read-only ``MOVE_DTYPE`` array, byte for byte
        as the core writes it (like ``MoveList.array``): for the functions
        that take rows (``action_index``, ``encode_moves``, ...)."""
        arr = np.zeros(1, dtype=MOVE_DTYPE)
        (<ddz_move*>cnp.PyArray_DATA(arr))[0] = self.m
        arr.flags.writeable = False
        return arr

    @property
    def identity(self):
        """(kind, rank, length, packed cards): what makes two moves the same."""
        return (self.m.kind, self.m.rank, self.m.length, self.m.cards)

    @property
    def text(self) -> str:
        """The ``KIND/r/n/cards`` form that ``Move.parse`` reads (``PASS``)."""
        if self.m.kind == K_PASS:
            return "PASS"
        return (f"{_KIND_NAMES[self.m.kind]}/{CARD_CHARS[self.m.rank]}"
                f"/{self.m.length}/{_cards_text(self.m.cards)}")

    @property
    def wild_text(self) -> str:
        """What W does in this move ('W as 3', 'W as kicker', 'W as itself'),
        or in a laizi move what its laizi stand for ('77 as 33'); '' when
        there is nothing to say."""
        if self.m.substitutes:
            return _substitutes_text(self.m, self.wild_rules)
        return describe_wild(self.m.wild, ddz_is_special(self.m.kind))

    def __eq__(self, other):
        cdef Move o
        if not isinstance(other, Move):
            return NotImplemented
        o = <Move>other
        return ddz_same_move(&self.m, &o.m)

    def __hash__(self):
        if self.wild_rules < 0:
            # a Move.__new__ not yet given its fields is classic's PASS from
            # its first hash on: a later __init__ would change a hashed key
            self.wild_rules = 0
        return hash((self.m.kind, self.m.rank, self.m.length, self.m.cards))

    def __str__(self):
        cdef str text = _KIND_NAMES[self.m.kind]
        cdef str wild
        if self.m.kind == K_PASS:
            return text
        text += " " + _cards_text(self.m.cards)
        wild = self.wild_text
        return f"{text} ({wild})" if wild else text

    def __repr__(self):
        rules = _own_rules(self)
        if rules is None:
            return f"Move.parse({self.text!r})"
        if (<Rules>rules).c.wild_mask:
            name = _move_rules_name(rules, self)
            if name is not None:
                return f"Move.parse({self.text!r}, {name!r})"
        return f"Move.parse({self.text!r}, {rules!r})"

    def __reduce__(self):
        rules = _own_rules(self)
        if rules is not None:
            return (Move, (int(self.m.kind), self.m.rank, self.m.length, self.m.cards,
                           None, rules))
        return (Move, (int(self.m.kind), self.m.rank, self.m.length, self.m.cards))


cdef object _own_rules(Move mv):
    # The rule set a move needs to be made again, None when the built-in
    # one that Move(...) without rules picks reads it alike: a laizi move's
    # (legal only with its wild ranks), or the one it was read in when no
    # built-in rule set has it (a kind a description of one's own added,
    # such as super's ROCKET of XDW) or the first that has it reads its W
    # otherwise (super's X+W as itself once wild_joker_stands is off)
    cdef Rules r
    rules = _RULES_BY_ID.get(mv.wild_rules)
    if rules is None or (<Rules>rules).c.wild_mask:
        return rules
    for r in _ANY_RULES:
        if ddz_check(&r.c, mv.m.kind, mv.m.rank, mv.m.length, mv.m.cards) >= 0:
            return None if _reads_alike(r, &mv.m) else rules
    return rules


cdef bint _reads_alike(Rules r, const ddz_move* m):
    # whether r, which has the move, reads its W and laizi as m says
    return (ddz_check(&r.c, m.kind, m.rank, m.length, m.cards) == m.wild
            and ddz_substitutes(&r.c, m.kind, m.rank, m.length, m.cards) == m.substitutes)


cdef uint64_t _substitute_bits(uint32_t subs) noexcept nogil:
    # ddz_substitutes' encoding as packed cards
    cdef uint64_t bits = 0
    cdef int j
    if subs >> 31:
        # four and four: A + 1 in bits 26..29, B + 1 in bits 0..3
        return (((<uint64_t>4) << (4 * (((subs >> 26) & 15) - 1)))
                + ((<uint64_t>4) << (4 * ((subs & 15) - 1))))
    for j in range(13):
        bits += (<uint64_t>((subs >> (2 * j)) & 3)) << (4 * j)
    j = (subs >> 26) & 15
    if j:
        bits += (<uint64_t>(8 if (subs >> 30) & 1 else 4)) << (4 * (j - 1))
    return bits


cdef str _substitutes_text(ddz_move m, int64_t rules_id):
    # "77 as 33": the laizi standing for other ranks, then those ranks. The
    # cards alone do not always tell the laizi rank (5578 may be 55+7 with an
    # 8 kicker or 55+8 with a 7), so it comes from the move's rule set.
    cdef uint64_t subs = _substitute_bits(m.substitutes)
    rules = _RULES_BY_ID.get(rules_id)
    if rules is not None and rules.wild_count == 2:
        # which physical laizi fill which rank the identity does not tell
        # (RULES.md 9): the laizi of the move that stand for something
        wild = 0
        ranks = 0
        for j in rules.wild_ranks:
            wild += m.cards & ((<uint64_t>15) << (4 * j))
            ranks += (m.cards >> (4 * j)) & 15 != 0
        if _hand_contains(wild, subs):
            # each main rank's laizi may be laizi of that rank as themselves
            # (a kicker laizi is not in subs): nothing to say
            return ""
        if _hand_size(wild) == _hand_size(subs):
            laizi = _cards_text(wild)
        elif ranks == 1:
            laizi = _cards_text(wild)[0] * _hand_size(subs)
        else:
            laizi = "laizi"
        return f"{laizi} as {_cards_text(subs)}"
    laizi = ("laizi " if rules is None or rules.wild_rank is None
             else CARD_CHARS[rules.wild_rank] * _hand_size(subs))
    return f"{laizi} as {_cards_text(subs)}"


cdef int _kind_code(object kind) except -1:
    if isinstance(kind, str):
        k = _KIND_BY_NAME.get(kind.upper())
        if k is None:
            raise ValueError(f"unknown move kind {kind!r}")
        return int(k)
    if not isinstance(kind, (int, np.integer)) or isinstance(kind, (bool, np.bool_)):
        raise TypeError(f"a move kind is a name or a MoveKind, not {kind!r}")
    if 0 <= kind < NKINDS:
        return int(kind)
    raise ValueError(f"unknown move kind {kind!r}")


cdef Move _move(const ddz_move* m, Rules rules):
    cdef Move mv = Move.__new__(Move)
    mv.m = m[0]
    mv.wild_rules = rules.rules_id
    return mv


cdef object _one_row(object move):
    # a one-row MOVE_DTYPE array (Move.array) as its row; anything else as it is
    if isinstance(move, cnp.ndarray) and move.dtype == MOVE_DTYPE and move.shape == (1,):
        return move[0]
    return move


cdef str _type_label(object value):
    # what a value is, for a TypeError (an array's shape and dtype say more)
    if isinstance(value, cnp.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    return type(value).__name__


cdef str _MOVE_TYPES = ("a Move, a MOVE_DTYPE row or a one-row MOVE_DTYPE array "
                        "(Move.array)")


cdef bint _read_row(object move, ddz_move* row) except -1:
    # A MOVE_DTYPE row (a numpy void of that dtype) or a one-row MOVE_DTYPE
    # array copied into *row from its memory (reading its fields by name
    # makes a numpy scalar each, many times a follow's generation); False
    # for anything else
    cdef cnp.ndarray a
    cdef void* data = NULL
    if isinstance(move, cnp.ndarray):
        a = <cnp.ndarray>move
        if cnp.PyArray_NDIM(a) != 1 or cnp.PyArray_DIM(a, 0) != 1:
            return False
        if <object>cnp.PyArray_DESCR(a) is not _MOVE_DESCR and a.dtype != MOVE_DTYPE:
            return False
        memcpy(row, cnp.PyArray_DATA(a), sizeof(ddz_move))
        return True
    if not isinstance(move, _VOID):
        return False
    descr = cnp.PyArray_DescrFromScalar(move)
    if descr is not _MOVE_DESCR and descr != MOVE_DTYPE:
        return False
    # (a void scalar gives the address of its data, not a copy)
    cnp.PyArray_ScalarAsCtype(move, &data)
    memcpy(row, data, sizeof(ddz_move))
    return True


cdef int _move_struct(object move, Rules rules, ddz_move* out, str what) except -1:
    """Read a Move (or a MOVE_DTYPE row, or a one-row array of one) into `out`,
    checking it is a legal move of the rule set and setting `wild` to that
    rule set's reading of it."""
    cdef Move mv
    cdef int wild
    cdef ddz_move row
    _need_wild(rules)
    # (a subclass's instance holds its struct, and the rule set that read it,
    # as a Move does)
    if isinstance(move, Move):
        mv = <Move>move
        out[0] = mv.m
        if mv.wild_rules == rules.rules_id:
            return 0
        wild = ddz_check(&rules.c, out.kind, out.rank, out.length, out.cards)
        if wild < 0:
            raise IllegalMoveError(f"{what} {mv} is not a legal move in {_rules_label(rules)}")
        out.wild = <uint8_t>wild
        out.substitutes = ddz_substitutes(&rules.c, out.kind, out.rank, out.length, out.cards)
        return 0
    if _read_row(move, &row):       # (after the Moves, the common case)
        # its identity; wild and substitutes are this rule set's reading
        memset(out, 0, sizeof(ddz_move))
        out.cards = row.cards
        out.kind = row.kind
        out.rank = row.rank
        out.length = row.length
        wild = ddz_check(&rules.c, out.kind, out.rank, out.length, out.cards)
        if wild < 0:
            raise IllegalMoveError(f"{what} (row {_one_row(move)}) is not a legal move in "
                                   f"{_rules_label(rules)}")
        out.wild = <uint8_t>wild
        out.substitutes = ddz_substitutes(&rules.c, out.kind, out.rank, out.length, out.cards)
        return 0
    raise TypeError(f"{what} must be {_MOVE_TYPES}, not {_type_label(move)}")


cdef int _last_struct(object last, Rules rules, ddz_move* out) except -1:
    _move_struct(last, rules, out, "last move")
    if out.kind == K_PASS:
        raise IllegalMoveError("last must be the last non-pass move, or None when leading")
    return 0


@cython.no_gc     # refers only to a Rules: no cycles through it
@cython.freelist(16)
cdef class MoveList:
    """The moves of one query: a thin object over a MOVE_DTYPE array
    (``.array``), with ``len``, indexing and iteration (yielding Move) and
    ``in`` (by move identity, of a Move or a MOVE_DTYPE row). Two are equal
    when they hold the same moves in the same order, of one rule set."""


    def __dealloc__(self):
        free(self.data)

    @property
    def array(self):
        """The moves as a read-only numpy array of MOVE_DTYPE: a view of this
        list's buffer (each access makes a new view; none is cached, so that
        the list and its array never form a reference cycle)."""
        return _move_array_view(self.data, self.n, self, False)

    @property
    def rules(self) -> Rules:
        """The rule set the moves are of."""
        return self._made_rules()

    cdef Rules _made_rules(self):
        if self.rules is None:
            raise ValueError("a MoveList never made (MoveList.__new__ alone) has no "
                             "rule set: MoveLists come from legal_moves and classify")
        return self.rules

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        cdef Py_ssize_t i
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self.n))]
        try:
            j = operator.index(index)
        except TypeError:
            raise TypeError(f"move indices must be integers or slices, not "
                            f"{type(index).__name__}") from None
        if j < 0:
            j += self.n
        if not 0 <= j < self.n:
            raise IndexError(f"move index {index} out of range for {self.n} moves")
        i = j
        return _move(&self.data[i], self.rules)

    def __iter__(self):
        cdef Py_ssize_t i
        for i in range(self.n):
            yield _move(&self.data[i], self.rules)

    def __contains__(self, move):
        cdef ddz_move m
        cdef Py_ssize_t i
        if isinstance(move, Move):
            m = (<Move>move).m
        elif not _read_row(move, &m):
            return False    # (as a list: what is no move is in no list of moves)
        # (a row, as of .array, by its identity fields as they are)
        for i in range(self.n):
            if ddz_same_move(&self.data[i], &m):
                return True
        return False

    def __eq__(self, other):
        # as lists of Moves: the same moves (by identity) in the same order,
        # of one rule set
        cdef MoveList o
        cdef Py_ssize_t i
        if not isinstance(other, MoveList):
            return NotImplemented
        o = <MoveList>other
        if self.rules is None or o.rules is None:
            return self is o        # (never made: equal to itself alone)
        if self.n != o.n or self.rules.rules_id != o.rules.rules_id:
            return False
        for i in range(self.n):
            if not ddz_same_move(&self.data[i], &o.data[i]):
                return False
        return True

    __hash__ = None     # (equal by value, as a list)

    def __array__(self, dtype=None, copy=None):
        # numpy reads a MoveList as its MOVE_DTYPE rows, not as Move objects
        a = self.array
        if dtype is not None and dtype != MOVE_DTYPE:
            # (only to a dtype holding every field whole: astype alone would
            # cut the packed cards and the substitutes down to a few bits)
            if not np.can_cast(MOVE_DTYPE, dtype, "safe"):
                raise TypeError(f"a MoveList's rows are MOVE_DTYPE; {np.dtype(dtype)} "
                                f"cannot hold each of their fields whole")
            return a.astype(dtype)
        return np.array(a) if copy else a

    def __repr__(self):
        shown = ", ".join(str(m) for m in self[:4])
        more = f", ... ({self.n} moves)" if self.n > 4 else ""
        return f"<MoveList [{shown}{more}]>"

    def __reduce__(self):
        # as its rows (16 bytes a move), each checked again when unpickled
        return (_move_list_of, (self._made_rules(), np.array(self.array)))


def _move_list_of(rules, rows) -> MoveList:
    """A MoveList of ``rows`` (a MOVE_DTYPE array) of ``rules``, each row a
    legal move of the rule set (IllegalMoveError otherwise), its ``wild`` and
    ``substitutes`` read again: how a pickled MoveList is made again."""
    cdef Rules r = _get_rules(rules)
    cdef cnp.ndarray a
    cdef ddz_move* m
    cdef Py_ssize_t i, n
    cdef int wild
    if not isinstance(rows, cnp.ndarray) or rows.ndim != 1 or rows.dtype.names is None \
            or rows.dtype.names != MOVE_DTYPE.names:
        raise TypeError("a pickled MoveList's rows are a 1-d MOVE_DTYPE array")
    a = np.array(rows, dtype=MOVE_DTYPE, order="C")   # (a copy of our own)
    n = cnp.PyArray_DIM(a, 0)
    if n:
        # (no move is read without both wild ranks, but the empty list a
        # tiandi Game gives before its ground rank is drawn needs none)
        _need_wild(r)
    m = <ddz_move*>cnp.PyArray_DATA(a)
    for i in range(n):
        wild = ddz_check(&r.c, m[i].kind, m[i].rank, m[i].length, m[i].cards)
        if wild < 0:
            raise IllegalMoveError(f"a pickled MoveList's row {i} is not a legal move "
                                   f"in {_rules_label(r)}")
        m[i].wild = <uint8_t>wild
        m[i].substitutes = ddz_substitutes(&r.c, m[i].kind, m[i].rank, m[i].length,
                                           m[i].cards)
    return _move_list(m, n, r)


cdef object _move_array_view(ddz_move* data, Py_ssize_t n, object owner, bint writeable):
    """A MOVE_DTYPE array over `data` (no copy) that keeps `owner` alive."""
    cdef cnp.npy_intp dims[1]
    cdef int flags = cnp.NPY_ARRAY_C_CONTIGUOUS | cnp.NPY_ARRAY_ALIGNED
    if writeable:
        flags |= cnp.NPY_ARRAY_WRITEABLE
    dims[0] = n
    Py_INCREF(MOVE_DTYPE)    # PyArray_NewFromDescr steals a reference
    a = _new_from_descr(<void*>np.ndarray, <void*>MOVE_DTYPE, 1, dims, NULL,
                        <void*>data, flags, NULL)
    Py_INCREF(owner)         # PyArray_SetBaseObject steals a reference
    cnp.PyArray_SetBaseObject(<cnp.ndarray>a, owner)
    return a


cdef MoveList _move_list(const ddz_move* src, int64_t n, Rules rules):
    cdef MoveList ml = MoveList.__new__(MoveList)
    ml.data = <ddz_move*>malloc((n if n > 0 else 1) * sizeof(ddz_move))
    if ml.data == NULL:
        raise MemoryError()
    if n:
        memcpy(ml.data, src, n * sizeof(ddz_move))
    ml.n = n
    ml.rules = rules
    return ml
