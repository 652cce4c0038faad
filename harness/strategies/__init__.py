"""The built-in strategy plugins.

Each module holds small :class:`harness.strategy.Strategy` subclasses written only
against the public strategy API, exactly as a user's plugin would be. Every class with
a ``name`` here is a built-in strategy (``harness strategies`` lists them).
"""
