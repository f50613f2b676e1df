"""One knob for slow machines: TEST_TIMEOUT_SCALE stretches every deadline the tests wait against.

The doubles' and the harness's waits, pytest-timeout's limits and the tests' own deadlines go through
`scaled`, so `TEST_TIMEOUT_SCALE=3 python3 dev.py test` gives a machine three times slower three times
as long before a wait fails. What a test measures (a delay the bot must keep, a rate) is not scaled.
"""

from __future__ import annotations

import os
from collections.abc import Mapping


def read_scale(environ: Mapping[str, str] = os.environ) -> float:
    """Return TEST_TIMEOUT_SCALE as a positive number (1 when unset); raise ValueError naming it otherwise."""
    raw = environ.get("TEST_TIMEOUT_SCALE", "").strip()
    if not raw:
        return 1.0
    try:
        scale = float(raw)
    except ValueError:
        scale = 0.0
    if not scale > 0 or scale == float("inf"):
        raise ValueError(f"TEST_TIMEOUT_SCALE must be a positive number, not {raw!r}")
    return scale


SCALE = read_scale()


def scaled(seconds: float) -> float:
    """Return `seconds` times TEST_TIMEOUT_SCALE: how long a test waits here for what takes `seconds` on a
    machine like CI's."""
    return seconds * SCALE
