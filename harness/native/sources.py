"""Staleness: whether the Python the C code was transcribed from is still the Python here.

The native strategies and the luck account mirror Python modules decision for decision,
float for float. A built-in whose source differs from the one transcribed (someone
improved it) is not played natively until the C code and :data:`SOURCES` are brought
along: silently playing the old decisions would break "bit-identical".
tests/native/test_native.py fails when a digest here is stale.
"""

from __future__ import annotations

import hashlib
import inspect
import sys

from harness.native.extension import NotNative

PACKAGE = "harness.strategies"  # the built-ins' package (the repository's strategies/)
COMMON = f"{PACKAGE}._common"  # the helpers every built-in shares
# SHA-256 of the source files each native strategy (and the account) was transcribed from.
SOURCES: dict[str, str] = {
    f"{PACKAGE}._common": "01f8cc85d6f8bdf3a54057b2af4a3b0b56827afd2bd2366e65ce891525fc7ae6",
    f"{PACKAGE}.greedy": "fa222f77607cecf48bf78ac9577e1c62f612f57dfe933d37e8cc7b6dce809572",
    f"{PACKAGE}.threshold": "180e513e15a1afe47500ac89049c60e49135df1093e0b29128be9700ffd6bc42",
    f"{PACKAGE}.worm_first": "4b8c0bb074b3227b916c7760a8c2841b67e9fbf66bae823ac51f5f9f93128d60",
    f"{PACKAGE}.simple": "1963c39bf79679795ab28a5353aadbe4cc8e9023035fa801839b0a07d6a561f9",
    f"{PACKAGE}.env_heuristic": "f237983b9959688c64423e3c67d70a716bb88cd5c6c2bc9ef46dd39c8798a83c",
    f"{PACKAGE}.tactician": "e8b84ccb82db7cceb2aeecd60cbfae51e81de33f6fc65fbd3958fde8c74725b0",
    f"{PACKAGE}.random_play": "1c2580a9204a26141886347495d8934849ea2814cc2529d659b8f368f9cf461a",
    f"{PACKAGE}.optimal": "a1d570f57e5a53d4e7056c9089519b6bd8f181270cbc0e0a63350a0fceba70d3",
    f"{PACKAGE}.win_optimal": "ee3341c544e4924692950fb1082365c7a7c336fab2ec523c63198762814fd462",
    # the win-probability evaluator: native/c/winprob.inc.c mirrors it, integer for integer
    "harness.winprob.evaluator": "9ce4fbd6800eef487b31da7f0e58fa6234b45dc3c64f223a5fdd10ba5163e9e1",
    "harness.winprob.features": "524933fc8aa1df34a50de883dc72f0a2ca6864a4259cb17282fe46e014da4b16",
    "harness.winprob.payoff": "8a249cbdbe898ff9743c5194d88b1bec0fb7d0262c8bbdbbb0b9f151a2b7c6e4",
    "harness.winprob.model": "0e1defa4b5e834ffc38e63bc584b7ce905d057452365559a10cd22b57f0add14",
    "harness.winprob.position": "fcbd0a5db9e0f9509db47e29674cb2b7bfe037a901edc54e65a46be5e913b858",
    "harness.analysis.turn": "96084d58e48588e46025f340978a2b66415b71163843633c5891b2055213285d",
    # the luck account's reference: account.inc.c mirrors its Accountant, float for float
    "harness.analysis.account": "60009f45bece62319eb8508ef5a75dfb9fe3e6d8cb14c1b732217e177aadb144",
    # the win account (winluck, winvec): account.inc.c keeps its luck and its vector, on
    # winprob.inc.c's payoff
    "harness.analysis.units": "53f60702ea6db0c31af6a26a2c8ed4fb582a2a5e1d11abfdaf921ad8dd067d55",
}
ACCOUNT_SOURCES = ("harness.analysis.account", "harness.analysis.turn")
# ... and the win account's (winluck), checked only for a batch that keeps it: reading
# them imports harness.winprob (numpy), which a worm-account batch never needs.
WIN_ACCOUNT_SOURCES = (
    *ACCOUNT_SOURCES,
    "harness.analysis.units",
    "harness.winprob.payoff",
    "harness.winprob.evaluator",
    "harness.winprob.features",
    "harness.winprob.position",
)
_WIN_ACCOUNT = " win account"
_ACCOUNT = " account"  # the account's key in STALE: never a strategy's name

STALE: dict[str, bool] = {}
"""What :func:`stale` found, by native strategy name (a test empties it)."""


def source_digest(module_name: str) -> str | None:
    """SHA-256 of a module's source file (None if it cannot be read)."""
    module = sys.modules.get(module_name)
    if module is None:
        try:
            module = __import__(module_name, fromlist=["_"])
        except Exception:  # noqa: BLE001 - a broken built-in is simply not native
            return None
    try:
        return hashlib.sha256(inspect.getsource(module).encode()).hexdigest()
    except (OSError, TypeError):
        return None


def _differs(key: str, modules: tuple[str, ...]) -> bool:
    found = STALE.get(key)
    if found is None:
        found = STALE[key] = any(source_digest(m) != SOURCES[m] for m in modules)
    return found


def stale(name: str, modules: tuple[str, ...]) -> bool:
    """Whether native strategy ``name``'s sources (``modules``: its own module and those
    it also mirrors) are not the ones the C code mirrors (cached)."""
    return _differs(name, (*modules, COMMON))


def refuse_stale(name: str, modules: tuple[str, ...]) -> None:
    """NotNative when :func:`stale` says so."""
    if stale(name, modules):
        raise NotNative(f"{name}: its source differs from the one the native engine mirrors")


def account_stale(win: bool = False) -> bool:
    """Whether the luck account's reference is not the source account.inc.c mirrors
    (cached); ``win``: the win account's too (harness.analysis.units, harness.winprob)."""
    if win:
        return _differs(_WIN_ACCOUNT, WIN_ACCOUNT_SOURCES)
    return _differs(_ACCOUNT, ACCOUNT_SOURCES)
