"""A person's seat: a strategy whose decisions a person types.

:class:`Person` is a :class:`~harness.strategy.Strategy` like any other, so it sits at
any game (``play_game([Person(), "greedy"], seed=1)`` in a notebook, or ``harness play
you greedy``): the engine asks it as it asks a bot and checks its answers the same way.
It draws what the person needs (the board at the turn's start, each roll, what is set
aside), reads an answer, and asks again, one line saying why, until the answer is a legal
move: a person's typo is never a forfeit.

``hints=True`` shows every option's exact value and regret before each decision (the
layout of ``harness analyze roll``: :mod:`harness.analysis.hints`), in ``unit``: chances
to win the game ("win", the default: the win-unit account's values) or worms of swing
("worms": ``harness analyze roll``'s very lines); ``tutor=W`` warns before a choice that
gives up more than W (in the unit) and asks to confirm. ``q``
(quit) and the end of the input stop the game as Ctrl-C does: the person's own
interrupt (:func:`harness.interrupts.interrupt_as_user`), never a forfeit; the caller
saves the record so far (:mod:`harness.people.table`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NoReturn

from harness.analysis.hints import Hint, claim_hints, roll_hints, stop_hints
from harness.analysis.roll import option_lines, option_table
from harness.analysis.units import check_unit
from harness.game.rules import Rules, face_name
from harness.game.strategy import Claim, Strategy
from harness.game.view import View
from harness.interrupts import interrupt_as_user
from harness.people.console import (
    COMMANDS,
    FACE_WORDS,
    HELP,
    RULE,
    STOP_WORDS,
    Console,
    choice_keys,
    grill_lines,
    kept_line,
    roll_lines,
    stack_lines,
)

#: The word a command line uses for a person's seat (``harness play you greedy``).
SEAT_NAME = "you"


class Person(Strategy):
    """A seat played by a person at the terminal (or a notebook): see the module docstring.

    ``names``: every seat's name, for the board (default ``seat N``); ``console``: where
    to draw and read (stdout and ``input()`` by default). :attr:`stopped` says why the
    person stopped the game (``"quit"`` or ``"input ended"``), None while playing.
    """

    name = SEAT_NAME

    def __init__(
        self,
        *,
        hints: bool = False,
        tutor: float | None = None,
        names: Sequence[str] | None = None,
        console: Console | None = None,
        unit: str = "win",
    ) -> None:
        if tutor is not None and not tutor >= 0:
            raise ValueError(f"tutor: {tutor!r}; give a threshold >= 0 (in the unit)")
        self.unit = check_unit(unit)
        self.hints = hints
        self.tutor = tutor
        self.names = list(names) if names is not None else None
        self.console = console if console is not None else Console()
        self.stopped: str | None = None
        self.seat = 0

    def new_game(self, seat: int, rules: Rules) -> None:
        self.seat = seat

    # -- the three questions -------------------------------------------------------------
    def pick(self, view: View) -> int:
        say = self.console.say
        if not view.kept:
            self._board(view)
        say(kept_line(view.kept, view.total, view.dice_left, view.has_worm))
        for line in roll_lines(view.rolled, view.counts, view.choices):
            say(line)
        unit = self.unit
        analysis = roll_hints(view, unit) if self.hints or self.tutor is not None else None
        if self.hints and analysis is not None:
            self._show_hints(option_lines(analysis))
        keys = choice_keys(view.choices)
        while True:
            answer = self._answer(
                f"keep [{keys}]> ", view, lambda: option_lines(roll_hints(view, unit))
            )
            if answer is None:
                continue
            face = FACE_WORDS.get(answer.lower())
            if face is None or face not in view.choices:
                shown = "not a face" if face is None else f"{face_name(face)} is not in this roll"
                if face is not None and face in view.kept_faces:
                    shown = f"{face_name(face)} is already set aside (R5)"
                self._wrong(f"{answer!r}: {shown}; type one of {keys} (? for help)")
                continue
            if analysis is not None and self.tutor is not None:
                option = analysis.option(face)
                if option.regret > self.tutor and not self._confirm(
                    f"keep {face_name(face)}", option.regret, analysis.options[0].describe()
                ):
                    continue
            return face

    def stop(self, view: View) -> bool:
        hints = stop_hints(view, self.unit)
        stop = next(h for h in hints if h.move == "stop")
        roll = next(h for h in hints if h.move == "roll")
        self.console.say(f"Total {view.total}: {stop.text}, or {roll.text}?")
        if self.hints:
            self._show_hints(_hint_lines(hints))
        while True:
            answer = self._answer("[s]top / [r]oll> ", view, lambda: _hint_lines(hints))
            if answer is None:
                continue
            stopping = STOP_WORDS.get(answer.lower())
            if stopping is None:
                self._wrong(f"{answer!r}: type s to stop or r to roll on (? for help)")
                continue
            chosen = next(h for h in hints if h.move == ("stop" if stopping else "roll"))
            if self._tutored(chosen, hints):
                return stopping

    def claim(self, view: View, choices: Sequence[Claim]) -> Claim:
        hints = claim_hints(view, choices, self.unit)
        by_move = {h.move: h for h in hints}
        ordered = [by_move[(c.tile, c.victim)] for c in choices]
        self.console.say(f"A stop at {view.total} may take:")
        for n, hint in enumerate(ordered, 1):
            victim = hint.move[1]
            whose = "" if victim is None else f" ({self._name(victim)})"
            self.console.say(f"  [{n}] {hint.text}{whose}")
        if self.hints:
            self._show_hints(_hint_lines(hints))
        while True:
            answer = self._answer(f"take [1-{len(choices)}]> ", view, lambda: _hint_lines(hints))
            if answer is None:
                continue
            if not answer.isdigit() or not 1 <= int(answer) <= len(choices):
                self._wrong(f"{answer!r}: type a number 1-{len(choices)} (? for help)")
                continue
            n = int(answer)
            if self._tutored(ordered[n - 1], hints):
                return choices[n - 1]

    # -- reading ---------------------------------------------------------------------------
    def _answer(self, prompt: str, view: View, hint_lines: Any) -> str | None:
        """One answer; None after a command (help, hints, board), which was done."""
        try:
            answer = self.console.ask(prompt)
        except EOFError:
            self._stop("input ended")
        command = COMMANDS.get(answer.lower())
        if command == "quit":
            self._stop("quit")
        if command == "help":
            for line in HELP:
                self.console.say(line)
        elif command == "hints":
            self._show_hints(hint_lines())
        elif command == "board":
            self._board(view)
        elif not answer:
            self._wrong("type an answer (? for help)")
        else:
            return answer
        return None

    def _stop(self, why: str) -> NoReturn:
        """The person stops the game: their own interrupt, as Ctrl-C (never a forfeit)."""
        self.stopped = why
        interrupt_as_user()
        raise KeyboardInterrupt  # not reached: interrupt_as_user raises it

    def _wrong(self, text: str) -> None:
        self.console.say(text, "error")

    def _confirm(self, what: str, regret: float, best: str) -> bool:
        """The tutor: ask before a choice that gives up more than the threshold."""
        given = f"{regret:.3f} worms" if self.unit == "worms" else f"{regret:.4f} of a win"
        self.console.say(f"Tutor: {what} gives up {given} against the best: {best}.", "warn")
        while True:
            try:
                answer = self.console.ask("do it anyway? [y/N]> ").lower()
            except EOFError:
                self._stop("input ended")
            if answer in ("y", "yes"):
                return True
            if answer in ("", "n", "no"):
                return False
            self._wrong(f"{answer!r}: y or n")

    def _tutored(self, chosen: Hint, hints: Sequence[Hint]) -> bool:
        if self.tutor is None or chosen.regret <= self.tutor:
            return True
        return self._confirm(chosen.text, chosen.regret, hints[0].text)

    # -- drawing ---------------------------------------------------------------------------
    def _board(self, view: View) -> None:
        say = self.console.say
        names = self.names or [f"seat {s}" for s in range(view.players)]
        say(RULE, "title")
        say(f"Turn {view.turn}: your turn (seat {view.seat})", "you")
        for line in grill_lines(view.grill, view.flipped):
            say(line)
        for line in stack_lines(view.stacks, names, view.seat):
            say(line)

    def _show_hints(self, lines: list[str]) -> None:
        unit = "worms of swing" if self.unit == "worms" else "chances to win"
        self.console.say(f"Hints (exact value of each option in {unit}; docs/luck.md):")
        for line in lines:
            self.console.say(line)

    def _name(self, seat: int) -> str:
        return self.names[seat] if self.names else f"seat {seat}"


def _hint_lines(hints: Sequence[Hint]) -> list[str]:
    """Stop / roll or claim options in the layout of ``harness analyze roll``."""
    return option_table((h.text, h.value, h.regret) for h in hints)


__all__ = ["SEAT_NAME", "Person"]
