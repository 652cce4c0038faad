"""The random strategy: a floor every other strategy should clear."""

from __future__ import annotations

from harness.strategy import Claim, Strategy, View


class RandomPlay(Strategy):
    """Picks uniformly among legal faces and claims, and stops with probability p_stop."""

    name = "random"

    def __init__(self, p_stop: float = 0.5) -> None:
        if not 0.0 <= p_stop <= 1.0:
            raise ValueError(f"p_stop must be within 0..1, got {p_stop}")
        self.p_stop = p_stop

    def pick(self, view: View) -> int:
        return view.rng.choice(view.choices)

    def stop(self, view: View) -> bool:
        return view.rng.random() < self.p_stop

    def claim(self, view: View, choices: list[Claim]) -> Claim:
        return view.rng.choice(choices)
