"""Bridge between DouZero's card lists and ddzfast's canonical card text.

DouZero (``pip install --no-deps douzero``; its move generator is pure Python
and needs neither torch nor rlcard) writes a card as an int::

    3 4 5 6 7 8 9 10 11 12 13 14  17  20  30
    3 4 5 6 7 8 9 T  J  Q  K  A   2   X   D

ddzfast's canonical text is one character per card, sorted low to high
(``3456789TJQKA2XD``; RULES.md section 1). DouZero has no wildcard, so W is
rejected here.

Nothing in this module imports ddzfast. DouZero itself is loaded lazily, on the
first call that needs it (``load_douzero()``), so the conversions work without
it; a missing DouZero raises ImportError.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import types
from types import SimpleNamespace
from typing import Iterable, List, Optional, Set

CARD_CHARS = "3456789TJQKA2XD"
DOUZERO_INTS = (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30)

_INT_TO_INDEX = {v: i for i, v in enumerate(DOUZERO_INTS)}
_CHAR_TO_INDEX = {c: i for i, c in enumerate(CARD_CHARS)}


# --------------------------------------------------------------------------
# conversions
# --------------------------------------------------------------------------

def text_to_indices(text: str) -> List[int]:
    """Card indices 0..14 of a card text (any order; '10' and lower case are
    accepted, spaces ignored), sorted low to high."""
    s = text.upper().replace("10", "T").replace(" ", "")
    out = []
    for ch in s:
        if ch not in _CHAR_TO_INDEX:
            raise ValueError(f"card {ch!r} of {text!r} has no DouZero equivalent")
        out.append(_CHAR_TO_INDEX[ch])
    out.sort()
    return out


def text_to_douzero(text: str) -> List[int]:
    """DouZero's sorted int list for a card text: ``'34TXD' -> [3, 4, 10, 20, 30]``."""
    return [DOUZERO_INTS[i] for i in text_to_indices(text)]


def douzero_to_text(cards: Iterable[int]) -> str:
    """Canonical text of a DouZero card list: ``[30, 3, 17, 3] -> '332D'``."""
    try:
        idx = sorted(_INT_TO_INDEX[c] for c in cards)
    except KeyError as e:
        raise ValueError(f"{e.args[0]!r} is not a DouZero card int") from None
    return "".join(CARD_CHARS[i] for i in idx)


def canonical(text: str) -> str:
    """Canonical form of a card text (sorted, upper case, 'T' for '10')."""
    return "".join(CARD_CHARS[i] for i in text_to_indices(text))


# --------------------------------------------------------------------------
# loading DouZero
# --------------------------------------------------------------------------

_DZ: Optional[SimpleNamespace] = None


def _load_file(name: str, path: str):
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _load_from_files() -> SimpleNamespace:
    """Load move_generator / move_detector / move_selector straight from the
    installed files, without running ``douzero/__init__`` or
    ``douzero/env/__init__`` (which pull in the rest of the package).

    Those modules import ``douzero.env.utils`` by absolute name, so stub
    packages are put in ``sys.modules`` while they load and removed after."""
    try:
        spec = importlib.util.find_spec("douzero")  # finds, does not execute
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("douzero is not installed "
                          "(pip install --no-deps douzero)")
    env_dir = os.path.join(list(spec.submodule_search_locations)[0], "env")
    names = ("douzero", "douzero.env", "douzero.env.utils")
    saved = {k: sys.modules.get(k) for k in names}
    try:
        utils = _load_file("douzero.env.utils", os.path.join(env_dir, "utils.py"))
        pkg = types.ModuleType("douzero")
        pkg.__path__ = []
        env = types.ModuleType("douzero.env")
        env.__path__ = []
        pkg.env = env
        env.utils = utils
        sys.modules.update({"douzero": pkg, "douzero.env": env,
                            "douzero.env.utils": utils})
        mg = _load_file("_ddz_douzero_move_generator",
                        os.path.join(env_dir, "move_generator.py"))
        md = _load_file("_ddz_douzero_move_detector",
                        os.path.join(env_dir, "move_detector.py"))
        ms = _load_file("_ddz_douzero_move_selector",
                        os.path.join(env_dir, "move_selector.py"))
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    return SimpleNamespace(MovesGener=mg.MovesGener, md=md, ms=ms,
                           game_env=None, source="files")


def load_douzero() -> SimpleNamespace:
    """DouZero's move code: ``MovesGener``, ``md`` (move_detector), ``ms``
    (move_selector) and ``game_env`` (the ``GameEnv`` class, or None).

    The normal import is tried first (it needs only numpy); if it fails, the
    three module files are loaded directly. Raises ImportError when DouZero
    is not installed."""
    global _DZ
    if _DZ is not None:
        return _DZ
    try:
        mg = importlib.import_module("douzero.env.move_generator")
        md = importlib.import_module("douzero.env.move_detector")
        ms = importlib.import_module("douzero.env.move_selector")
        try:
            game_env = importlib.import_module("douzero.env.game").GameEnv
        except Exception:  # pragma: no cover - only on odd installs
            game_env = None
        _DZ = SimpleNamespace(MovesGener=mg.MovesGener, md=md, ms=ms,
                              game_env=game_env, source="import")
    except ImportError:
        _DZ = _load_from_files()
    return _DZ


def douzero_version() -> Optional[str]:
    try:
        from importlib.metadata import version
        return version("douzero")
    except Exception:
        return None


# --------------------------------------------------------------------------
# DouZero's legal moves
# --------------------------------------------------------------------------

def douzero_gen_moves(cards: List[int]) -> List[List[int]]:
    """``MovesGener(cards).gen_moves()``: DouZero's moves when leading, as int
    lists (duplicates possible, no pass)."""
    return load_douzero().MovesGener(cards).gen_moves()


def douzero_move_multisets(text: str) -> Set[str]:
    """Canonical card texts of DouZero's ``gen_moves()`` for the hand ``text``
    (its moves when leading). DouZero's empty pass move is skipped if emitted."""
    return {douzero_to_text(m) for m in douzero_gen_moves(text_to_douzero(text)) if m}


def douzero_legal_moves(hand: List[int], rival_move: List[int]) -> List[List[int]]:
    """DouZero's legal moves of ``hand`` after ``rival_move`` (``[]`` when
    leading), exactly as its game computes them: this calls
    ``GameEnv.get_legal_card_play_actions`` on a minimal stand-in for the game
    state. The result includes ``[]`` (pass) when ``rival_move`` is not empty."""
    dz = load_douzero()
    rival_move = list(rival_move)
    if dz.game_env is None:
        raise ImportError("DouZero's GameEnv could not be imported")
    state = SimpleNamespace(
        info_sets={"landlord": SimpleNamespace(player_hand_cards=list(hand))},
        acting_player_position="landlord",
        card_play_action_seq=[rival_move] if rival_move else [],
    )
    return dz.game_env.get_legal_card_play_actions(state)


def douzero_follow_multisets(text: str, last_text: str) -> Set[str]:
    """Canonical card texts of DouZero's legal moves for the hand ``text``
    following the move ``last_text``; the pass move is the empty string."""
    return {douzero_to_text(m)
            for m in douzero_legal_moves(text_to_douzero(text), text_to_douzero(last_text))}


def douzero_move_type(text: str) -> dict:
    """DouZero's ``move_detector.get_move_type`` of a card text (a dict with
    'type' and possibly 'rank' and 'len')."""
    dz = load_douzero()
    return dz.md.get_move_type(text_to_douzero(text))
