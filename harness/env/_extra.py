"""The ``rl`` extra's packages, or one line (an ImportError) saying how to install them."""

from __future__ import annotations

_HOW = "pip install 'pickomino-harness[rl]'"

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as exc:  # pragma: no cover - CI installs the rl extra
    raise ImportError(f"harness.env needs gymnasium ({exc}): {_HOW}") from None


def pettingzoo_env() -> type:
    """``pettingzoo.AECEnv``; ImportError in one line without pettingzoo."""
    try:
        from pettingzoo import AECEnv
    except ImportError as exc:  # pragma: no cover
        raise ImportError(f"harness.env.aec needs pettingzoo ({exc}): {_HOW}") from None
    return AECEnv


__all__ = ["gymnasium", "pettingzoo_env", "spaces"]
