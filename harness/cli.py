"""``harness.cli``: the console script's entry point (``harness = "harness.cli:main"``) and
``python -m harness.cli``, kept where installs and scripts find it; the group is
:mod:`harness.commands.group`."""

from harness.commands.group import main

if __name__ == "__main__":  # pragma: no cover
    main()
