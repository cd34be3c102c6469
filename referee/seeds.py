"""Seeds derived from named parts, the one source of every random choice.

A deal, a substituted action or a sampled opponent gets its seed from stable
parts (the tournament's seed, a group index, a decision id), never from
timing, so the same inputs always give the same games.
"""

from __future__ import annotations

import hashlib


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from the given parts, stable across runs and platforms."""
    digest = hashlib.sha256("/".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def opaque_id(*parts: object) -> str:
    """An identifier of 16 hex digits that shows none of ``parts``: whoever does not
    know every part (a secret among them) can neither compute it nor read one back."""
    return f"{derive_seed(*parts):016x}"
