# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""ddzfast's deal engine: one deal of Dou Dizhu in C, and its Python face.

One extension module built from three source files; its C interface is
_engine.pxd, and it reads hands, moves and rule sets through _core.pxd:

* _deal.pxi: the deal engine in C (dealing, bidding, tricks, scoring), the
  built-in policies and the simulation loop, without the GIL;
* _game.pxi: Game, the object bots drive, and the native simulation entry
  point;
* _observe.pxi: observation tensors of a Game, filled in C.
"""

from libc.stdint cimport uint8_t, int16_t, uint64_t, int64_t
from libc.stdlib cimport malloc, free, realloc
from libc.string cimport memcpy, memset

from cpython.exc cimport PyErr_CheckSignals
cimport numpy as cnp
import numpy as np
from types import MappingProxyType

from ddzfast._core cimport *
from ddzfast._split cimport (ddz_split_ctx, ddz_split_init, ddz_split_free, ddz_min_plays,
                             ddz_split_moves, DDZ_SPLIT_MAX_WORK)
from ddzfast._core import _parallel, _sliced, legal_action_indices
from ddzfast._readonly import read_only
from ddzfast.constants import CARD_CHARS, DEAL_CARDS, deck_text
from ddzfast.errors import IllegalMoveError

cnp.import_array()


include "_deal.pxi"
include "_expert.pxi"
include "_game.pxi"
include "_observe.pxi"
