"""``python -m harness``: the same command line as the ``harness`` script.

For an environment whose scripts folder is not on PATH (a notebook's kernel, a venv
that is not activated): ``python -m harness tourney round_robin``.
"""

from harness.cli import main

if __name__ == "__main__":  # not when a spawned worker re-imports this as __mp_main__
    main(prog_name="harness")
