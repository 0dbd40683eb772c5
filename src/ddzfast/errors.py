"""ddzfast's exception types. Both are ValueError subclasses, so code that
catches ValueError keeps working; callers and tests can match the type rather
than the message."""


class InvalidCardsError(ValueError):
    """Card text, a packed hand or a set of cards that is not of the deck:
    an unknown card, too many copies of one, a wildcard in a deck without
    one, or cards that are not in the hand they are played from."""


class IllegalMoveError(ValueError):
    """A move that is not legal: not a move of the rule set, not in the
    hand, out of turn, or not beating the last move."""
