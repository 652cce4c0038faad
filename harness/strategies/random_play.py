"""The random strategy: a floor every other strategy should clear."""

from __future__ import annotations

from harness.strategy import Bound, Claim, Strategy, View


class RandomPlay(Strategy):
    """Picks uniformly among legal faces and claims, and stops with probability p_stop."""

    name = "random"
    bounds = {"p_stop": Bound(0, 1)}

    def __init__(self, p_stop: float = 0.5) -> None:
        self.p_stop = p_stop

    def pick(self, view: View) -> int:
        return view.rng.choice(view.choices)

    def stop(self, view: View) -> bool:
        return view.rng.random() < self.p_stop

    def claim(self, view: View, choices: list[Claim]) -> Claim:
        return view.rng.choice(choices)
