"""pytest configuration: the tests import their shared helpers (helpers.py)
and the oracles (the oracles package) from this folder."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
