"""Adapters between ddzfast and other Dou Dizhu libraries' conventions (each
module needs its library's optional extra; ``import ddzfast`` imports none)."""
