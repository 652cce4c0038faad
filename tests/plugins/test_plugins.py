"""Plugin loading from all three sources, parameters, and every way a reference can fail.

Sources: built-in names (``strategies/``), entry points in the ``harness.strategies``
group (a real tiny distribution on a temporary sys.path entry, found by
importlib.metadata like any installed package), and ``path/file.py:Class`` /
``package.module:Class`` references. Each failure is one line, and ``harness play``
exits non-zero with no traceback.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from harness import play_game
from harness.errors import PluginError
from harness.plugins import builtin_strategies, parse_reference, resolve
from harness.strategies.greedy import Greedy
from harness.strategies.threshold import Threshold
from harness.strategy import Strategy

pytestmark = pytest.mark.interpreter

BOT = """
from harness.strategy import Strategy, WORM


class MyBot(Strategy):
    '''Keeps worms first, then the most points; stops at target.'''

    name = "my-bot"

    def __init__(self, target: int = 25, bold: bool = False, label: str = "x"):
        self.target = target

    def pick(self, view):
        if WORM in view.choices and not view.has_worm:
            return WORM
        return max(view.choices, key=lambda f: view.counts[f] * min(f, 5))

    def stop(self, view):
        return view.total >= self.target


class Helper:
    pass


def function():
    pass


class Half(Strategy):
    name = "half"

    def pick(self, view):
        return max(view.choices)


class Boom(Strategy):
    name = "boom"

    def __init__(self):
        raise RuntimeError("no config file")

    def pick(self, view):
        return max(view.choices)

    def stop(self, view):
        return True


class Needs(MyBot):
    def __init__(self, level: int):
        self.target = 25


class Open(MyBot):
    def __init__(self, **options):
        self.target = options.get("target", 25)
"""


@pytest.fixture
def plugin_dir(tmp_path: Path) -> Path:
    (tmp_path / "bots.py").write_text(BOT)
    (tmp_path / "syntax.py").write_text("class Bot(:\n    pass\n")
    (tmp_path / "importer.py").write_text("import no_such_module_anywhere\n")
    return tmp_path


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An installed distribution 'tinybots' registering entry points, on sys.path."""
    root = tmp_path / "site"
    pkg = root / "tinybots"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(BOT.replace('name = "my-bot"', 'name = "tiny"'))
    (pkg / "broken.py").write_text("raise ImportError('tinybots.broken needs numpy 9')\n")
    info = root / "tinybots-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tinybots\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        textwrap.dedent(
            """\
            [harness.strategies]
            tiny = tinybots:MyBot
            tiny-broken = tinybots.broken:Bot
            tiny-helper = tinybots:Helper
            [console_scripts]
            unrelated = tinybots:main
            """
        )
    )
    monkeypatch.syspath_prepend(str(root))
    yield root
    for name in [m for m in sys.modules if m == "tinybots" or m.startswith("tinybots.")]:
        del sys.modules[name]


def error(ref: str, params: dict | None = None) -> str:
    with pytest.raises(PluginError) as info:
        resolve(ref, params).create()
    text = str(info.value)
    assert "\n" not in text and "Traceback" not in text
    return text


# -- built-in names -------------------------------------------------------------------------
def test_builtins_are_the_strategies_package():
    found = builtin_strategies()
    assert {"greedy", "random", "threshold", "worm-first"} <= set(found)
    for name, cls in found.items():
        assert issubclass(cls, Strategy) and cls.name == name
        assert cls.description(), f"{name} needs a one-line docstring"


def test_builtin_with_parameters():
    spec = resolve("threshold(target=28)")
    assert spec.cls is Threshold and spec.params == (("target", 28),)
    assert spec.label == "threshold(target=28)" and spec.origin == "builtin"
    bot = spec.create()
    assert isinstance(bot, Threshold) and bot.target == 28
    assert spec.create() is not bot  # a fresh instance for every seat


def test_params_from_a_config_mapping_merge_with_inline_ones():
    spec = resolve("worm-first(target=27)", {"min_dice": 2})
    assert dict(spec.params) == {"target": 27, "min_dice": 2}
    assert resolve("threshold", {"target": 30}).create().target == 30


@pytest.mark.parametrize(
    "text, ref, params",
    [
        ("greedy", "greedy", {}),
        (" threshold( target = 28 ) ", "threshold", {"target": 28}),
        ("random(p_stop=0.25)", "random", {"p_stop": 0.25}),
        ("x(flag=true, other=false, none=null)", "x", {"flag": True, "other": False, "none": None}),
        ("x(name='a b', xs=[1, 2])", "x", {"name": "a b", "xs": [1, 2]}),
        ("path/to/bot.py:Bot(level=3)", "path/to/bot.py:Bot", {"level": 3}),
    ],
)
def test_parse_reference(text, ref, params):
    assert parse_reference(text) == (ref, params)


def test_identity_names_code_and_parameters():
    ident = resolve("threshold(target=28)").identity()
    assert ident["ref"] == "threshold" and ident["params"] == {"target": 28}
    assert ident["class"] == "harness.strategies.threshold:Threshold"
    assert len(ident["code"]) == 16


# -- entry points ------------------------------------------------------------------------
def test_entry_point_strategy(site):
    spec = resolve("tiny(target=30)")
    assert spec.origin == "entry-point" and spec.cls.__name__ == "MyBot"
    assert spec.create().target == 30
    result = play_game(["tiny", "greedy"], seed=4)
    assert result.over and result.names == ["tiny", "greedy"]


def test_entry_points_appear_in_suggestions_and_listing(site, cli):
    assert "did you mean 'tiny'?" in error("tinny")
    out = cli("strategies").output
    assert "tiny" in out and "Keeps worms first, then the most points" in out
    assert "tiny-broken" in out and "cannot load: ImportError" in out


def test_broken_entry_points_are_one_line_errors(site):
    text = error("tiny-broken")
    assert "loading entry point tinybots.broken:Bot failed: ImportError" in text
    assert "not a subclass of harness.strategy.Strategy" in error("tiny-helper")


def test_entry_point_through_the_cli(site, cli):
    ok = cli("play", "tiny", "greedy", "--seed", "3")
    assert ok.exit_code == 0 and "seat 0: tiny" in ok.output
    bad = cli("play", "tiny-broken", "greedy")
    assert bad.exit_code == 2 and "Traceback" not in bad.output  # bad input
    assert bad.output.startswith("Error: strategy 'tiny-broken': loading entry point")
    assert bad.output.count("\n") == 1


# -- files and modules -------------------------------------------------------------------
def test_file_reference(plugin_dir):
    spec = resolve(f"{plugin_dir}/bots.py:MyBot(target=28)")
    assert spec.origin == "file" and spec.cls.name == "my-bot"
    assert spec.create().target == 28
    assert spec.label == f"{plugin_dir}/bots.py:MyBot(target=28)"


def test_relative_file_reference(plugin_dir, monkeypatch):
    monkeypatch.chdir(plugin_dir)
    assert resolve("bots.py:MyBot").cls.name == "my-bot"
    assert resolve("./bots.py:MyBot").cls.name == "my-bot"


def test_module_reference(plugin_dir, monkeypatch):
    monkeypatch.syspath_prepend(str(plugin_dir))
    spec = resolve("bots:MyBot")
    assert spec.origin == "module" and spec.cls.name == "my-bot"
    assert resolve("harness.strategies.greedy:Greedy").cls is Greedy
    monkeypatch.delitem(sys.modules, "bots", raising=False)


def test_an_edited_plugin_file_is_loaded_again(tmp_path):
    """A notebook session edits its plugin and plays again: the new code must run, and
    the code digest must describe the code that runs."""
    path = tmp_path / "edited.py"
    path.write_text(BOT)
    first = resolve(f"{path}:MyBot")
    assert first.create().target == 25
    digest = first.identity()["code"]
    path.write_text(BOT.replace("target: int = 25", "target: int = 33"))
    second = resolve(f"{path}:MyBot")
    assert second.create().target == 33
    assert second.identity()["code"] != digest
    assert first.identity()["code"] == digest  # the code first runs is still the old code
    assert resolve(f"{path}:MyBot").cls is second.cls  # unchanged files are not reloaded


def test_plugin_instances_play(plugin_dir):
    result = play_game([f"{plugin_dir}/bots.py:MyBot(target=27)", "greedy"], seed=8)
    assert result.over and result.names[0].endswith("bots.py:MyBot(target=27)")


# -- errors ------------------------------------------------------------------------------------
def test_unknown_name_suggests_and_lists(plugin_dir):
    text = error("greddy")
    assert text.startswith("unknown strategy 'greddy'; did you mean 'greedy'? available: ")
    assert "threshold" in text and "worm-first" in text
    assert "path/to/file.py:ClassName" in text
    assert "did you mean" not in error("zzzzzz")


@pytest.mark.parametrize(
    "ref, message",
    [
        ("{d}/missing.py:Bot", "strategy '{d}/missing.py:Bot': file {d}/missing.py not found"),
        (
            "{d}/syntax.py:Bot",
            "strategy '{d}/syntax.py:Bot': loading {d}/syntax.py failed: SyntaxError: ",
        ),
        (
            "{d}/importer.py:Bot",
            "failed: ModuleNotFoundError: No module named 'no_such_module_anywhere'",
        ),
        ("{d}/bots.py:Nope", "{d}/bots.py has no class 'Nope'; strategies there: "),
        ("{d}/bots.py:Helper", "not a subclass of harness.strategy.Strategy"),
        ("{d}/bots.py:function", "not a subclass of harness.strategy.Strategy"),
        ("{d}/bots.py:Half", "strategy '{d}/bots.py:Half' does not implement stop()"),
        ("{d}/bots.py:Boom", "building it raised RuntimeError: no config file"),
        ("{d}/bots.py:Needs", "missing parameter level"),
        ("no_such_pkg.mod:Bot", "'no_such_pkg.mod:Bot': no module named 'no_such_pkg.mod'"),
        ("harness.strategies.nothing:Bot", "no module named 'harness.strategies.nothing'"),
        ("bots.py:", "write path/to/file.py:ClassName or module:Class"),
    ],
)
def test_bad_references(plugin_dir, ref, message):
    text = error(ref.format(d=plugin_dir))
    assert message.format(d=plugin_dir) in text


def test_syntax_error_names_the_line(plugin_dir):
    assert "(line 1)" in error(f"{plugin_dir}/syntax.py:Bot")


def test_missing_class_lists_the_strategies_there(plugin_dir):
    text = error(f"{plugin_dir}/bots.py:Nope")
    assert "MyBot" in text and "Boom" in text and "Helper" not in text


@pytest.mark.parametrize(
    "ref, message",
    [
        ("threshold(targt=28)", "strategy threshold: unknown parameter 'targt'; "),
        ("threshold(target='high')", "parameter target expects int (default 27), got 'high'"),
        ("threshold(target=28.5)", "parameter target expects int (default 27), got 28.5"),
        ("worm-first(min_dice=true)", "parameter min_dice expects int (default 3), got True"),
        ("random(p_stop='x')", "parameter p_stop expects float (default 0.5), got 'x'"),
        ("threshold(target=50)", "threshold: parameter target: 50 is out of bounds: give a number"),
        ("threshold(28)", "parameters must be named, e.g. threshold(target=28)"),
        ("threshold(target=)", "cannot read the parameters; write name(key=value, ...)"),
        ("threshold(target=x)", "parameter target must be a literal"),
        ("threshold(target=28", "unknown strategy 'threshold(target=28'"),
        ("(target=28)", "unbalanced parentheses"),
        ("", "empty strategy reference"),
    ],
)
def test_bad_parameters(ref, message):
    assert message in error(ref)


def test_unknown_parameter_lists_the_parameters_and_a_suggestion():
    text = error("threshold(targt=28)")
    assert "parameters: target=27" in text and "did you mean 'target'?" in text


def test_params_must_be_a_mapping():
    assert "params must be a mapping" in error("threshold", [("target", 28)])  # type: ignore[arg-type]


def test_open_ended_parameters_are_passed_on(plugin_dir):
    assert resolve(f"{plugin_dir}/bots.py:Open(target=31, x=1)").create().target == 31


def test_an_int_is_a_fine_float():
    assert resolve("random(p_stop=1)").create().p_stop == 1


@pytest.mark.parametrize(
    "ref",
    [
        "greddy",
        "{d}/missing.py:Bot",
        "{d}/syntax.py:Bot",
        "{d}/bots.py:Nope",
        "{d}/bots.py:Helper",
        "{d}/bots.py:Half",
        "{d}/bots.py:Boom",
        "threshold(targt=28)",
        "threshold(target='high')",
    ],
)
def test_harness_play_fails_in_one_line(cli, plugin_dir, ref):
    result = cli("play", ref.format(d=plugin_dir), "greedy", "--seed", "1")
    assert result.exit_code == 2  # bad input
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ")
    assert "Traceback" not in result.output


def test_harness_strategies_lists_every_builtin_with_parameters(cli):
    out = cli("strategies").output
    for name, cls in builtin_strategies().items():
        assert name in out and cls.description() in out
    assert "parameters: target=27" in out
    assert "path/to/file.py:ClassName" in out


def test_harness_strategies_json(cli):
    import json

    rows = json.loads(cli("strategies", "--json").output)
    by_name = {r["name"]: r for r in rows}
    assert by_name["threshold"]["params"] == {"target": 27}
    assert by_name["greedy"]["origin"] == "built-in"


# -- one mechanism: the built-ins are the project's own entry points (issue 11) ---------------
def _strategy_classes_of_the_package() -> dict[str, str]:
    """Every named strategy class defined in harness.strategies, as entry-point values."""
    import importlib
    import inspect
    import pkgutil

    import harness.strategies

    found: dict[str, str] = {}
    for info in pkgutil.iter_modules(harness.strategies.__path__):
        module = importlib.import_module(f"harness.strategies.{info.name}")
        for obj in vars(module).values():
            if (
                inspect.isclass(obj)
                and issubclass(obj, Strategy)
                and obj.__module__ == module.__name__
                and obj.name
            ):
                found[obj.name] = f"{obj.__module__}:{obj.__qualname__}"
    return found


def test_every_builtin_class_is_registered_by_the_project_under_its_own_name():
    """pyproject.toml's entry points are the built-ins: a class added to strategies/ and
    not registered there (or registered under another name) fails here."""
    from harness.plugins import DISTRIBUTION, _is_own, _registered

    own = {ep.name: ep.value for ep in _registered() if _is_own(ep)}
    assert own == _strategy_classes_of_the_package()
    assert {ep.dist.name for ep in _registered() if _is_own(ep)} == {DISTRIBUTION}
    assert set(builtin_strategies()) == set(own) and len(own) == 9
    assert resolve("greedy").origin == "builtin"


def test_the_repository_pyproject_registers_what_is_installed():
    """The installed metadata is not stale: it says what pyproject.toml says."""
    import tomllib

    from harness.plugins import _is_own, _registered

    root = Path(__file__).resolve().parents[2]
    declared = tomllib.loads((root / "pyproject.toml").read_text())["project"]["entry-points"]
    installed = {ep.name: ep.value for ep in _registered() if _is_own(ep)}
    assert declared["harness.strategies"] == installed


def test_a_third_party_entry_point_cannot_take_a_builtin_name(tmp_path, monkeypatch, cli):
    root = tmp_path / "site"
    (root / "impostor").mkdir(parents=True)
    (root / "impostor" / "__init__.py").write_text(BOT)
    info = root / "impostor-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: impostor\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[harness.strategies]\ngreedy = impostor:MyBot\n")
    monkeypatch.syspath_prepend(str(root))
    try:
        assert resolve("greedy").cls is Greedy
        assert play_game(["greedy", "greedy"], seed=2).over
        from harness.plugins import entry_point_strategies

        assert "greedy" in entry_point_strategies()  # it is listed as the plugin it is
        rows = {
            (r["name"], r["origin"])
            for r in __import__("json").loads(cli("strategies", "--json").output)
        }
        assert ("greedy", "built-in") in rows
    finally:
        sys.modules.pop("impostor", None)


def test_without_the_project_metadata_the_error_says_why():
    """harness imported from a folder that was never installed: no built-ins, and one line
    that says the metadata is missing (not just "available: ")."""
    from harness import plugins
    from harness.plugins import catalogue  # where the catalogue reads them

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(catalogue, "_registered", lambda: [])
        patch.setattr(catalogue, "_BROKEN", {})
        plugins.builtin_strategies.cache_clear()
        try:
            assert plugins.builtin_strategies() == {}
            text = error("greedy")
            assert "unknown strategy 'greedy'" in text and "metadata is missing" in text
        finally:
            plugins.builtin_strategies.cache_clear()
    assert "greedy" in plugins.builtin_strategies() and not plugins.broken_builtins()


def test_a_stale_egg_info_in_the_cwd_does_not_hide_the_builtins(tmp_path, monkeypatch):
    """A checkout's old pickomino_harness.egg-info (no entry points), first on sys.path as
    the cwd is for python -c, must not stand for the installed metadata."""
    from harness import plugins

    info = tmp_path / "pickomino_harness.egg-info"
    info.mkdir()
    (info / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: pickomino-harness\nVersion: 0\n")
    (info / "entry_points.txt").write_text("[console_scripts]\nharness = harness.cli:main\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(tmp_path))
        patch.setattr(plugins.catalogue, "_BROKEN", {})
        plugins.builtin_strategies.cache_clear()
        try:
            assert len(plugins.builtin_strategies()) == 9 and not plugins.broken_builtins()
        finally:
            plugins.builtin_strategies.cache_clear()


USER_GREEDY = """
from harness.strategy import Strategy


class Greedy(Strategy):
    '''The user's own greedy: raises at its first decision.'''

    name = "greedy"

    def pick(self, view):
        raise RuntimeError("the user's strategies/greedy.py was played")

    def stop(self, view):
        raise RuntimeError("the user's strategies/greedy.py was played")
"""


@pytest.fixture
def users_strategies(tmp_path: Path) -> Path:
    """A user's folder with their own package named strategies/ (the most natural name),
    whose __init__ says so loudly if anything imports it by that name."""
    pkg = tmp_path / "strategies"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        "import sys\nprint('USER STRATEGIES IMPORTED', file=sys.stderr)\n"
    )
    (pkg / "greedy.py").write_text(USER_GREEDY)
    return tmp_path


def _python(cwd: Path, *args: str):
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def test_a_users_strategies_folder_does_not_shadow_the_builtins(users_strategies):
    """cwd (first on sys.path for python -c) holds the user's strategies/: the built-ins
    still play, and nothing imports the user's package unless it is named."""
    code = (
        "import sys\n"
        "from harness import play_game\n"
        "result = play_game(['greedy', 'greedy'], seed=5)\n"
        "assert result.over, result\n"
        "assert 'strategies' not in sys.modules, 'the user package was imported'\n"
        "from harness.plugins import resolve\n"
        "spec = resolve('strategies.greedy:Greedy')\n"
        "assert spec.origin == 'module' and spec.cls.__module__ == 'strategies.greedy'\n"
        "assert resolve('greedy').cls.__module__ == 'harness.strategies.greedy'\n"
        "print('ok', result.names)\n"
    )
    done = _python(users_strategies, "-c", code)
    assert done.returncode == 0, done.stderr
    assert "ok ['greedy', 'greedy']" in done.stdout
    # Imported only by the explicit module reference, after the game.
    assert done.stderr.count("USER STRATEGIES IMPORTED") == 1


def test_harness_strategies_from_a_users_strategies_folder(users_strategies):
    done = _python(users_strategies, "-m", "harness", "strategies")
    assert done.returncode == 0, done.stderr
    assert "USER STRATEGIES IMPORTED" not in done.stderr
    assert "Not available" not in done.stderr
    for name, cls in builtin_strategies().items():
        assert name in done.stdout and cls.description() in done.stdout
    assert "raises at its first decision" not in done.stdout


def test_a_users_strategies_module_is_user_code():
    """A module reference into a top-level strategies package is the user's code (its own
    code identity, run like any plugin), not a built-in."""
    from harness.plugins import _OWN_PACKAGES

    assert _OWN_PACKAGES == ("harness",)


# -- one test of "is this reference a file?" (issue 13, item 6) ----------------------------
FILE_OR_MODULE = [
    ("bot.py", True),
    ("dir/bot", True),
    ("dir\\bot", True),  # a Windows path
    ("C:\\bots\\bot.py", True),
    ("/abs/path/bot.py", True),
    ("package.module", False),
    ("harness.strategies.greedy", False),
    ("bot.pyc", False),  # not .py, no separator: a module name, as it always was
    ("py", False),
]


@pytest.mark.parametrize(("where", "is_file"), FILE_OR_MODULE)
def test_every_room_tells_a_file_reference_the_same_way(where, is_file, tmp_path):
    from harness.plugins import names_a_file
    from harness.tourney.backends import base as backend
    from harness.tourney.backends import dask as dask_backend
    from harness.tourney.config import Checker
    from harness.tourney.plan import EntrantRef

    assert names_a_file(where) is is_file
    ref = f"{where}:Bot"
    assert dask_backend.file_of(f"{ref}(k=1)") == (where if is_file else None)
    if is_file:  # user code, never a built-in, whatever the path says
        assert not backend.is_builtin_ref(EntrantRef("x", ref, (), "c"))
        with pytest.raises(PluginError, match="cannot|no such|not found|does not exist"):
            resolve(ref)  # loaded as a file (none there): never imported as a module
    located = Checker("config", tmp_path).locate(ref)
    if not is_file:
        assert located == ref  # a module reference is never taken for a path
    elif ":" not in where and "\\" not in where:  # a plain relative or absolute path
        assert Path(located.rpartition(":")[0]).is_absolute()
