"""Independent oracles and drivers the tests check ddzfast against (none of
them is a test module):

* ``reference``: the pure-Python legal-move reference of RULES.md (classic,
  biegang, super), brute force over sub-multisets;
* ``reference_laizi``: the same for the ``laizi`` rule set (RULES.md 8);
* ``reference_tiandi``: the same for the ``tiandi`` rule set (RULES.md 9, two
  wild ranks), and ``reference_tiandi_assign``, its second formulation (every
  assignment of the laizi through the classic classifier);
* ``solve_reference``: a plain memoized minimax for ``ddzfast.solve``;
* ``platform_reference``: RULES.md 10 (call/rob bidding, showing, doubling,
  the settlement, the no-shuffle pile and its splitmix64 draws);
* ``douzero_adapter``: loads DouZero's own move generator and environment;
* ``fuzz_driver``: a script fuzzing every public entry point, one group per
  process (``python tests/oracles/fuzz_driver.py GROUP SEED CALLS``).

Import them as ``from oracles import reference`` (``tests/`` is on sys.path
through tests/conftest.py).
"""
