"""Adapters between ddzfast and other Dou Dizhu projects' conventions.

* ``ddzfast.compat.douzero``: DouZero's training environment as a drop-in
  (its ``Env``, legal actions and card lists); it imports nothing of DouZero.
* ``ddzfast.compat.rlcard``: RLCard's action ids to moves and back; it reads
  the id list from the installed ``rlcard`` (the ``ddzfast[rlcard]`` extra).

``import ddzfast`` imports neither.
"""
