"""``harness.rules``: the public import path of :mod:`harness.game.rules` (the same module).

Plugins and notebooks import the strategy API from here (``from harness.rules import ...``),
as the docs show; the module itself lives in the game's room, :mod:`harness.game`. This
file makes the two names one module object, so a class, a constant or a patch is the same
whichever path reached it.
"""

import sys

from harness.game import rules as _module

sys.modules[__name__] = _module
