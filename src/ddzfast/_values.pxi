# The Python values of ddzfast, included into _core.pyx: card text, rule
# sets (Rules), hands (Hand), moves (Move) and move lists (MoveList). They
# convert and validate; the C core computes.

from types import MappingProxyType

from ddzfast.constants import CARD_CHARS, describe_wild
MOVE_DTYPE = np.dtype(
    [("cards", "<u8"), ("kind", "u1"), ("rank", "u1"), ("length", "u1"),
     ("wild", "u1")],
    align=True,
)
if MOVE_DTYPE.itemsize != sizeof(ddz_move):
    raise ImportError("MOVE_DTYPE does not match the core's move layout")

cdef object _KINDS = tuple(MoveKind)
cdef dict _CHAR_INDEX = {c: i for i, c in enumerate(CARD_CHARS)}
_CHAR_INDEX.update({c.lower(): i for i, c in enumerate(CARD_CHARS)})
cdef dict _KIND_BY_NAME = {k.name: k for k in MoveKind}

# Scratch buffer for legal_moves(); the GIL is held while it is in use.
DEF SCRATCH = 8192
cdef ddz_move _scratch[SCRATCH]


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
                raise ValueError(
                    f"unknown card {ch!r} at position {i} of {text!r}; "
                    f"cards are {CARD_CHARS} ('10' for T, lower case accepted)")
            i += 1
        if (bits >> (4 * <int>idx)) & 15 == 15:
            raise ValueError(f"too many {CARD_CHARS[idx]!r} in {text!r}")
        bits += (<uint64_t>1) << (4 * <int>idx)
    return bits


cdef str _cards_text(uint64_t bits):
    cdef list parts = []
    cdef int i
    for i in range(16):
        parts.append(CARD_CHARS[i] * _nib(bits, i))
    return "".join(parts)


cdef str _deck_problem(uint64_t bits, Rules rules):
    # Why `bits` is not a hand of this deck (None when it is one).
    cdef int i, k
    for i in range(16):
        k = _nib(bits, i)
        if i < 13 and k > 4:
            return f"{k} of {CARD_CHARS[i]!r} (a deck has 4)"
        if i >= 13 and k > 1:
            return f"{k} of {CARD_CHARS[i]!r} (a deck has 1)"
    if rules is not None and (bits & WBIT) and not rules.c.has_wild:
        return f"a wildcard W, which the {rules.name!r} deck does not have"
    return None


cdef uint64_t _to_bits(object value, Rules rules, str what) except? 0xFFFFFFFFFFFFFFFF:
    """Packed cards from a Hand, an int or card text, checked against the deck."""
    cdef uint64_t bits
    cdef str problem
    if type(value) is Hand:
        bits = (<Hand>value).bits
    elif isinstance(value, str):
        bits = _parse_cards(value)
    elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if value < 0 or value >= 1 << 64:
            raise ValueError(f"{what} {value!r} is not a packed hand (0 <= value < 2**64)")
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
    raise ValueError(f"{what} {_cards_text(bits) or '(empty)'!r} holds {problem}")


cdef class Rules:
    """A rule set compiled for the core. ``Rules("classic")`` (or the name alone,
    wherever rules are asked for) gives one of the built-in sets; a new set is
    ``Rules(name, **description)`` with the fields of ddzfast.rulesets."""

    cdef ddz_rules c
    cdef readonly str name
    cdef readonly object description
    cdef readonly int rules_id

    def __init__(self, str name, **description):
        if not description:
            if name not in RULE_SETS:
                raise ValueError(f"unknown rule set {name!r}; built in: "
                                 f"{', '.join(RULE_SETS)}")
            description = RULE_SETS[name]
        self.name = name
        # read-only: changing it would not recompile the rule set
        self.description = MappingProxyType(dict(description))
        self._compile(description)
        self.rules_id = _next_rules_id()

    cdef _compile(self, dict d):
        cdef int k
        def kind_of(value, field):
            if value is None:
                return 0
            if value not in _KIND_BY_NAME:
                raise ValueError(f"{field}: unknown move kind {value!r}")
            return int(_KIND_BY_NAME[value])
        known = {"wildcard", "kinds", "tiers", "ranked", "wild_joker_kind",
                 "wild_joker_stands", "xdw_kind", "four_wild_kind", "kitty",
                 "multipliers", "wild_max_rank", "mult_cap", "service_fee",
                 "deal_cap"}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown rule-set fields: {sorted(unknown)}")
        for k in range(NKINDS):
            self.c.allowed[k] = 0
            self.c.tier[k] = 0
            self.c.ranked[k] = 0
            self.c.mult[k] = 0
        self.c.allowed[K_PASS] = 1
        for name in d.get("kinds", ()):
            self.c.allowed[kind_of(name, "kinds")] = 1
        for name, tier in d.get("tiers", {}).items():
            if not 0 < tier < 256:
                raise ValueError(f"tiers: {name} has tier {tier}, not in 1..255")
            self.c.tier[kind_of(name, "tiers")] = tier
        for name in d.get("ranked", ()):
            self.c.ranked[kind_of(name, "ranked")] = 1
        self.c.has_wild = 1 if d.get("wildcard", False) else 0
        self.c.wild_joker_kind = kind_of(d.get("wild_joker_kind"), "wild_joker_kind")
        self.c.wild_joker_stands = 1 if d.get("wild_joker_stands", False) else 0
        self.c.xdw_kind = kind_of(d.get("xdw_kind"), "xdw_kind")
        self.c.four_wild_kind = kind_of(d.get("four_wild_kind"), "four_wild_kind")
        self.c.wild_max_rank = d.get("wild_max_rank", 12)
        kitty = d.get("kitty", 4 if self.c.has_wild else 3)
        if not 0 <= kitty <= 4 or kitty != 54 + self.c.has_wild - 51:
            raise ValueError(f"kitty: {kitty} cards, but the deck leaves "
                             f"{54 + self.c.has_wild - 51} after dealing 3 x 17")
        self.c.kitty = kitty
        for name, factor in d.get("multipliers", {}).items():
            if not 1 <= factor <= 255:
                raise ValueError(f"multipliers: {name} has factor {factor}, not in 1..255")
            self.c.mult[kind_of(name, "multipliers")] = factor
        cap = d.get("mult_cap")
        if cap is not None and cap < 1:
            raise ValueError(f"mult_cap must be at least 1 (or None), not {cap}")
        self.c.mult_cap = cap or 0
        fee = d.get("service_fee", 0.0)
        if not 0.0 <= fee < 1.0:
            raise ValueError(f"service_fee is a share of each winner's gain, "
                             f"0 <= fee < 1, not {fee}")
        self.c.service_fee = fee
        deal_cap = d.get("deal_cap")
        if deal_cap is not None and deal_cap <= 0:
            raise ValueError(f"deal_cap must be positive (or None), not {deal_cap}")
        self.c.deal_cap = deal_cap or 0.0
        for k in (self.c.wild_joker_kind, self.c.xdw_kind, self.c.four_wild_kind):
            if k and not self.c.allowed[k]:
                raise ValueError(f"{MoveKind(k).name} is used but not in kinds")
            if k and not ddz_is_special(k):
                raise ValueError(f"{MoveKind(k).name} cannot be a wildcard special")
        if (self.c.wild_joker_kind or self.c.xdw_kind or self.c.four_wild_kind) \
                and not self.c.has_wild:
            raise ValueError("wildcard kinds given for a deck without W")

    @property
    def wildcard(self) -> bool:
        """The deck holds one W."""
        return bool(self.c.has_wild)

    @property
    def kinds(self):
        """The move kinds of this rule set, PASS included."""
        return frozenset(k for k in MoveKind if self.c.allowed[k])

    def tier(self, kind) -> int:
        """The bomb tier of a kind (0 for plain moves)."""
        return self.c.tier[int(kind)]

    def with_options(self, **changes) -> Rules:
        """A copy of this rule set with some fields changed, e.g.
        ``get_rules("super").with_options(service_fee=0.05, deal_cap=96)``."""
        return Rules(self.name, **{**self.description, **changes})

    @property
    def kitty(self) -> int:
        """Cards in the kitty."""
        return self.c.kitty

    @property
    def address(self) -> int:
        """The address of the compiled ``ddz_rules`` struct, for C and Numba
        callers (ddzfast.numba). Valid while this Rules object is alive (the
        built-in rule sets live as long as the module)."""
        return <size_t>&self.c

    def __repr__(self):
        return f"Rules({self.name!r})"

    def __reduce__(self):
        if self.name in RULE_SETS and self.description == RULE_SETS[self.name]:
            return (Rules, (self.name,))
        return (_rules_from_description, (self.name, dict(self.description)))


def _rules_from_description(name, description):
    return Rules(name, **description)


cdef int _rules_counter = 0


cdef int _next_rules_id():
    global _rules_counter
    _rules_counter += 1
    return _rules_counter - 1


cdef dict _RULES = {name: Rules(name) for name in RULE_SETS}
RULES = dict(_RULES)


cdef object _last_name = None     # the name asked for last, and its Rules
cdef Rules _last_rules = None


cdef inline Rules _get_rules(object rules):
    global _last_name, _last_rules
    if rules is _last_name:
        return _last_rules
    if type(rules) is str:
        r = _RULES.get(rules)
        if r is None:
            raise ValueError(f"unknown rule set {rules!r}; built in: "
                             f"{', '.join(RULE_SETS)}")
        _last_name = rules
        _last_rules = <Rules>r
        return <Rules>r
    if isinstance(rules, Rules):
        return <Rules>rules
    raise TypeError(f"rules must be a rule-set name or a Rules, not {type(rules).__name__}")


def get_rules(rules="classic") -> Rules:
    """The Rules for a name ("classic", "biegang", "super") or a Rules."""
    return _get_rules(rules)


cdef class Hand:
    """An immutable multiset of cards, packed in one uint64 (nibble i = count
    of card index i of RULES.md, nibble 15 = the wildcard W).

    ``Hand("33W45678")``, ``Hand.parse(text, rules)``, ``Hand(packed_int)``;
    ``int(hand)`` and ``str(hand)`` (canonical text) convert back.
    """

    cdef readonly uint64_t bits

    def __init__(self, value=0, rules=None):
        self.bits = _to_bits(value, None if rules is None else _get_rules(rules), "hand")

    @staticmethod
    def parse(str text, rules=None) -> Hand:
        """Parse card text (``'334TTJQKA22XDW'``; ``10`` and lower case accepted).
        With ``rules``, also check it against that rule set's deck."""
        cdef Hand h = Hand.__new__(Hand)
        h.bits = _to_bits(text, None if rules is None else _get_rules(rules), "hand")
        return h

    def validate(self, rules) -> Hand:
        """Return self when it is a hand of the rule set's deck, else raise ValueError."""
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
        if isinstance(cards, (Hand, str, int)):
            return bool(ddz_contains(self.bits, _to_bits(cards, None, "cards")))
        raise TypeError("'in <Hand>' needs cards (a Hand, card text or packed int)")

    def __len__(self):
        return ddz_size(self.bits)

    def __bool__(self):
        return self.bits != 0

    def __iter__(self):
        return iter(_cards_text(self.bits))

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
        return hash(("Hand", self.bits))

    def __add__(self, other):
        cdef Hand o = Hand(other) if not isinstance(other, Hand) else other
        cdef Hand h = Hand.__new__(Hand)
        cdef int i
        for i in range(16):
            if _nib(self.bits, i) + _nib(o.bits, i) > 15:
                raise ValueError(f"too many {CARD_CHARS[i]!r} in {self} + {o}")
        h.bits = _to_bits(self.bits + o.bits, None, "sum")
        return h

    def __sub__(self, other):
        cdef Hand o = Hand(other) if not isinstance(other, Hand) else other
        cdef Hand h = Hand.__new__(Hand)
        if not ddz_contains(self.bits, o.bits):
            raise ValueError(f"{o} is not contained in {self}")
        h.bits = self.bits - o.bits
        return h

    def __reduce__(self):
        return (Hand, (self.bits,))


cdef int _card_index(object card) except -1:
    if isinstance(card, str):
        if card == "10":
            return 7
        idx = _CHAR_INDEX.get(card)
        if idx is not None and len(card) == 1:
            return idx
        raise ValueError(f"unknown card {card!r}; cards are {CARD_CHARS}")
    if isinstance(card, int) and 0 <= card < 16:
        return card
    raise ValueError(f"a card is one of {CARD_CHARS!r} or an index 0..15, not {card!r}")


cdef inline Hand _hand(uint64_t bits):
    cdef Hand h = Hand.__new__(Hand)
    h.bits = bits
    return h


@cython.freelist(64)
cdef class Move:
    """One move: ``kind``, main ``rank`` (a card index), chain ``length``, the
    physical ``cards`` that leave the hand (W included) and ``wild``, the card
    index W stands for in the main part (15: W is a kicker or plays as itself;
    255: no W). Identity (equality, hashing) is (kind, rank, length, cards).

    ``Move(kind, rank, length, cards)`` checks that some rule set has this move
    and fills in ``wild``; ``Move.parse("PAIR/3/1/3W")`` reads the text form
    ``KIND/r/n/cards`` with r as a card character.
    """

    cdef ddz_move m
    cdef uint64_t legal_in    # bit i: checked legal in the rule set of id i

    def __init__(self, kind, rank, length, cards, wild=None):
        cdef int k = _kind_code(kind)
        cdef uint64_t bits = _to_bits(cards, None, "cards")
        cdef int found = -1, v
        cdef Rules r
        if not isinstance(rank, int) or not isinstance(length, int):
            raise TypeError("rank and length must be ints")
        if not 0 <= rank < 16 or not 0 <= length < 16:
            raise ValueError(f"rank {rank} / length {length} out of range 0..15")
        self.m.cards = bits
        self.m.kind = k
        self.m.rank = rank
        self.m.length = length
        self.legal_in = 0
        for r in _RULES.values():
            v = ddz_check(&r.c, k, rank, length, bits)
            if v >= 0:
                found = v
                if r.rules_id < 64:
                    self.legal_in |= (<uint64_t>1) << r.rules_id
        if found < 0:
            raise ValueError(
                f"{_cards_text(bits) or '(no cards)'} is not a {MoveKind(k).name} "
                f"of rank {CARD_CHARS[rank]} and length {length} in any rule set")
        if wild is not None and wild != found:
            raise ValueError(f"wild={wild} does not match the move (W stands for {found})")
        self.m.wild = found

    @staticmethod
    def parse(str text) -> Move:
        """Read ``KIND/r/n/cards`` (``PASS`` alone for a pass)."""
        if text.strip().upper() == "PASS":
            return Move(MoveKind.PASS, 0, 0, 0)
        parts = text.strip().split("/")
        if len(parts) != 4:
            raise ValueError(f"a move is KIND/r/n/cards, not {text!r}")
        kind, r, n, cards = parts
        try:
            length = int(n)
        except ValueError:
            raise ValueError(f"move length {n!r} is not a number in {text!r}") from None
        return Move(kind, _card_index(r), length, cards)

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
    def identity(self):
        """(kind, rank, length, packed cards): what makes two moves the same."""
        return (self.m.kind, self.m.rank, self.m.length, self.m.cards)

    def __eq__(self, other):
        cdef Move o
        if not isinstance(other, Move):
            return NotImplemented
        o = <Move>other
        return (self.m.kind == o.m.kind and self.m.rank == o.m.rank
                and self.m.length == o.m.length and self.m.cards == o.m.cards)

    def __hash__(self):
        return hash((self.m.kind, self.m.rank, self.m.length, self.m.cards))

    @property
    def text(self) -> str:
        """The ``KIND/r/n/cards`` form that ``Move.parse`` reads (``PASS``)."""
        if self.m.kind == K_PASS:
            return "PASS"
        return (f"{_KINDS[self.m.kind].name}/{CARD_CHARS[self.m.rank]}"
                f"/{self.m.length}/{_cards_text(self.m.cards)}")

    @property
    def wild_text(self) -> str:
        """What W does in this move ('W as 3', 'W as kicker', 'W as itself'),
        or '' when the move has no W."""
        return describe_wild(self.m.wild, ddz_is_special(self.m.kind))

    def __str__(self):
        cdef str text = _KINDS[self.m.kind].name
        cdef str wild
        if self.m.kind == K_PASS:
            return text
        text += " " + _cards_text(self.m.cards)
        wild = describe_wild(self.m.wild, ddz_is_special(self.m.kind))
        return f"{text} ({wild})" if wild else text

    def __repr__(self):
        return f"Move.parse({self.text!r})"

    def __reduce__(self):
        return (Move, (int(self.m.kind), self.m.rank, self.m.length, self.m.cards))


cdef int _kind_code(object kind) except -1:
    if isinstance(kind, str):
        k = _KIND_BY_NAME.get(kind.upper())
        if k is None:
            raise ValueError(f"unknown move kind {kind!r}")
        return int(k)
    if isinstance(kind, int) and 0 <= kind < NKINDS:
        return int(kind)
    raise ValueError(f"unknown move kind {kind!r}")


cdef inline Move _move(const ddz_move* m, Rules rules):
    cdef Move mv = Move.__new__(Move)
    mv.m = m[0]
    mv.legal_in = ((<uint64_t>1) << rules.rules_id) if rules.rules_id < 64 else 0
    return mv


cdef int _move_struct(object move, Rules rules, ddz_move* out, str what) except -1:
    """Read a Move (or a MOVE_DTYPE row) into `out`, checking it is a legal move
    of the rule set."""
    cdef Move mv
    cdef int wild
    cdef uint64_t bit
    if type(move) is Move:
        mv = <Move>move
        out[0] = mv.m
        bit = ((<uint64_t>1) << rules.rules_id) if rules.rules_id < 64 else 0
        if mv.legal_in & bit:
            return 0
        wild = ddz_check(&rules.c, out.kind, out.rank, out.length, out.cards)
        if wild < 0:
            raise ValueError(f"{what} {mv} is not a legal move in {rules.name!r}")
        mv.legal_in |= bit
        return 0
    if isinstance(move, np.void) and move.dtype == MOVE_DTYPE:
        out.cards = <uint64_t>move["cards"]
        out.kind = <uint8_t>move["kind"]
        out.rank = <uint8_t>move["rank"]
        out.length = <uint8_t>move["length"]
        out.wild = <uint8_t>move["wild"]
        wild = ddz_check(&rules.c, out.kind, out.rank, out.length, out.cards)
        if wild < 0:
            raise ValueError(f"{what} (row {move}) is not a legal move in {rules.name!r}")
        out.wild = wild
        return 0
    if isinstance(move, Move):
        return _move_struct(Move(move.kind, move.rank, move.length, move.cards),
                            rules, out, what)
    raise TypeError(f"{what} must be a Move or a MOVE_DTYPE row, not {type(move).__name__}")


cdef int _last_struct(object last, Rules rules, ddz_move* out) except -1:
    _move_struct(last, rules, out, "last move")
    if out.kind == K_PASS:
        raise ValueError("last must be the last non-pass move, or None when leading")
    return 0


@cython.no_gc     # refers only to a Rules: no cycles through it
@cython.freelist(16)
cdef class MoveList:
    """The moves of one query: a thin object over a MOVE_DTYPE array
    (``.array``), with ``len``, indexing and iteration (yielding Move) and
    ``in`` (by move identity)."""

    cdef ddz_move* data
    cdef Py_ssize_t n
    cdef Rules rules

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
        return self.rules

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        cdef Py_ssize_t i
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self.n))]
        i = index
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError(f"move index {index} out of range for {self.n} moves")
        return _move(&self.data[i], self.rules)

    def __iter__(self):
        cdef Py_ssize_t i
        for i in range(self.n):
            yield _move(&self.data[i], self.rules)

    def __contains__(self, move):
        cdef Move mv
        cdef Py_ssize_t i
        if not isinstance(move, Move):
            return False
        mv = <Move>move
        for i in range(self.n):
            if (self.data[i].cards == mv.m.cards and self.data[i].kind == mv.m.kind
                    and self.data[i].rank == mv.m.rank
                    and self.data[i].length == mv.m.length):
                return True
        return False

    def __repr__(self):
        shown = ", ".join(str(m) for m in self[:4])
        more = f", ... ({self.n} moves)" if self.n > 4 else ""
        return f"<MoveList [{shown}{more}]>"


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
