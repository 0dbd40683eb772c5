"""Drop-in replacements for other projects' Dou Dizhu environments.

Each module is importable on its own and imports nothing of the project it
imitates: ``ddzfast.compat.douzero`` (DouZero's training environment).
"""
