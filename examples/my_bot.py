from harness.strategy import WORM, Strategy


class WormHunter(Strategy):
    """Sets aside worms first, then the most points; stops at the target total."""

    name = "worm-hunter"

    def __init__(self, target: int = 25):
        self.target = target

    def pick(self, view):
        if WORM in view.choices and not view.has_worm:
            return WORM
        return max(view.choices, key=lambda face: view.counts[face] * min(face, 5))

    def stop(self, view):
        return view.total >= self.target
