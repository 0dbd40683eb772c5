"""The core from Numba: functions callable inside ``@numba.njit`` code.

They call the very C functions of ``ddzfast._core`` (``ddz_legal_moves``,
``ddz_classify``, ``ddz_beats``, ...), reached through
``numba.extending.get_cython_function_address``, with no Python in the loop.
Importing this module needs numba (``pip install ddzfast[numba]``).

Conventions inside jitted code:

* ``rules`` is an integer handle: ``rules_handle("classic")`` (the address of
  the compiled rule set; the built-in sets live as long as the process, a
  custom ``Rules`` object must be kept alive by the caller).
* A hand or a set of cards is a packed ``uint64`` (see ``ddzfast.Hand``).
* Moves live in ``MOVE_DTYPE`` arrays; a single move is passed as a one-row
  array (``moves[i:i + 1]``), and "no last move" (leading) as an empty one,
  ``no_last()``.

Signatures (all ``nopython``, no GIL needed):

* ``legal_moves_into(rules, hand, last, out) -> int64``: the legal moves of
  ``hand`` after ``last`` (empty: leading) into ``out``; raises ValueError when
  the hand is not of the rule set's deck, ``last`` is not a legal non-pass move
  or ``out`` is too small.
* ``classify_into(rules, cards, out) -> int64``: every reading of exactly
  ``cards`` as one move (at most 285; ``out`` of 285 rows always suffices).
* ``beats(rules, move, last) -> bool``: ``move[0]`` beats ``last[0]``.
* ``play(hand, cards) -> uint64``: the hand left; ValueError when ``cards`` is
  not contained in ``hand``.
* ``hand_valid(rules, hand) -> bool``.
"""
from __future__ import annotations

import ctypes

import numba
import numpy as np
from numba.extending import get_cython_function_address

from ddzfast._core import MOVE_DTYPE, get_rules

__all__ = ["rules_handle", "no_last", "legal_moves_into", "classify_into",
           "beats", "play", "hand_valid", "MOVE_DTYPE"]

# Pointers are passed as size_t: the same registers as a pointer on every
# 64-bit ABI numba supports, and numba hands array addresses over as integers.
_PTR = ctypes.c_size_t


def _bind(name, restype, *argtypes):
    address = get_cython_function_address("ddzfast._core", name)
    return ctypes.CFUNCTYPE(restype, *argtypes)(address)


_c_legal_moves = _bind("ddz_legal_moves", ctypes.c_int64, _PTR, ctypes.c_uint64,
                       _PTR, _PTR, ctypes.c_int64)
_c_classify = _bind("ddz_classify", ctypes.c_int64, _PTR, ctypes.c_uint64, _PTR,
                    ctypes.c_int64)
_c_check = _bind("ddz_check", ctypes.c_int, _PTR, ctypes.c_int, ctypes.c_int,
                 ctypes.c_int, ctypes.c_uint64)
_c_beats = _bind("ddz_beats", ctypes.c_int, _PTR, _PTR, _PTR)
_c_hand_valid = _bind("ddz_hand_valid", ctypes.c_int, _PTR, ctypes.c_uint64)
_c_contains = _bind("ddz_contains", ctypes.c_int, ctypes.c_uint64, ctypes.c_uint64)


def rules_handle(rules="classic") -> int:
    """The integer handle of a rule set, for the jitted functions."""
    return get_rules(rules).address


def no_last() -> np.ndarray:
    """An empty MOVE_DTYPE array: ``last`` when leading."""
    return np.empty(0, MOVE_DTYPE)


@numba.njit(nogil=True)
def _check_move(rules, move):
    if move.shape[0] < 1:
        raise ValueError("a move is a one-row MOVE_DTYPE array")
    m = move[0]
    if _c_check(rules, m.kind, m.rank, m.length, m.cards) < 0:
        raise ValueError("not a legal move of this rule set")


@numba.njit(nogil=True)
def hand_valid(rules, hand):
    return _c_hand_valid(rules, np.uint64(hand)) != 0


@numba.njit(nogil=True)
def legal_moves_into(rules, hand, last, out):
    hand = np.uint64(hand)
    if _c_hand_valid(rules, hand) == 0:
        raise ValueError("hand is not a hand of this rule set's deck")
    last_ptr = 0
    if last.shape[0] > 0:
        _check_move(rules, last)
        if last[0].kind == 0:
            raise ValueError("last must be a non-pass move (or empty when leading)")
        last_ptr = last.ctypes.data
    n = _c_legal_moves(rules, hand, last_ptr, out.ctypes.data, out.shape[0])
    if n > out.shape[0]:
        raise ValueError("out is too small for the legal moves of this hand")
    return n


@numba.njit(nogil=True)
def classify_into(rules, cards, out):
    cards = np.uint64(cards)
    if _c_hand_valid(rules, cards) == 0:
        raise ValueError("cards are not of this rule set's deck")
    n = _c_classify(rules, cards, out.ctypes.data, out.shape[0])
    if n > out.shape[0]:
        raise ValueError("out is too small for the readings of these cards")
    return n


@numba.njit(nogil=True)
def beats(rules, move, last):
    _check_move(rules, move)
    _check_move(rules, last)
    if last[0].kind == 0:
        raise ValueError("last must be a non-pass move")
    return _c_beats(rules, move.ctypes.data, last.ctypes.data) != 0


@numba.njit(nogil=True)
def play(hand, cards):
    hand = np.uint64(hand)
    cards = np.uint64(cards)
    if _c_contains(hand, cards) == 0:
        raise ValueError("the cards are not all in the hand")
    return hand - cards
