"""Shipped configs found by name, ``harness init`` and ``python -m harness`` (issue 11).

In-process and fast; tests/commands/test_install.py checks the same from a built wheel.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness import play_game
from harness.commands.init import BOT_FILE, CONFIG_FILE, write_starter
from harness.configs import config_path, configs_dir, shipped_configs
from harness.errors import ConfigError
from harness.tourney.config import load_config

pytestmark = pytest.mark.engine

ROOT = Path(__file__).resolve().parents[2]


def deals_option() -> str:
    """The tourney option that sets the deals per table (--deals, once --games is renamed)."""
    from harness.commands.tourney import tourney

    names = {opt for param in tourney.params for opt in getattr(param, "opts", [])}
    return "--deals" if "--deals" in names else "--games"


# -- shipped configs ---------------------------------------------------------------------------
def test_every_repository_config_is_shipped_and_valid():
    assert configs_dir() is not None
    assert set(shipped_configs()) == {p.stem for p in (ROOT / "harness" / "configs").glob("*.yaml")}
    for name, path in shipped_configs().items():
        assert load_config(path).name == name  # each loads, and runs under its own name


@pytest.mark.parametrize("argument", ["round_robin", "round_robin.yaml"])
def test_a_bare_name_is_the_shipped_config(argument, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an empty folder: no file of that name
    assert Path(config_path(argument)) == shipped_configs()["round_robin"]


def test_an_existing_file_always_wins(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("round_robin", "round_robin.yaml"):
        (tmp_path / name).write_text("name: mine\n")
        assert config_path(name) == name  # the user's own file, not the shipped one


def test_a_folder_of_that_name_is_not_a_config(tmp_path, monkeypatch):
    """After a run, results/round_robin/ exists; a folder named round_robin here too must
    not hide the shipped config."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "round_robin").mkdir()
    assert Path(config_path("round_robin")) == shipped_configs()["round_robin"]


@pytest.mark.parametrize("argument", ["configs/round_robin.yaml", "x/round_robin", "a.txt"])
def test_a_path_is_left_to_the_loader(argument, tmp_path, monkeypatch):
    """A path that is not there is not silently replaced by a shipped config."""
    monkeypatch.chdir(tmp_path)
    assert config_path(argument) == argument


@pytest.mark.parametrize(
    "argument", ["nosuch", "round-robin", "nosuch.yml", "x" * 5000, "nul\x00name"]
)
def test_an_unknown_name_is_one_line_listing_the_shipped_names(argument, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as info:
        config_path(argument)
    text = str(info.value)
    assert "\n" not in text and len(text) < 400
    assert "no such config file, nor a shipped config" in text
    assert "shipped: four_player, gauntlet, million, optimal_vs_simple, round_robin" in text


def test_the_tourney_command_takes_a_name(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bad = cli("tourney", "nosuch")
    assert bad.exit_code == 2 and bad.output.count("\n") == 1
    assert bad.output.startswith("Error: nosuch: no such config file, nor a shipped config")
    missing = cli("tourney", "configs/nosuch.yaml")
    assert missing.exit_code == 2 and "no such config file" in missing.output


def test_a_checkout_without_configs_has_none(tmp_path, monkeypatch):
    """Only a configs/ folder of this package or of its own checkout counts."""
    import harness.configs as shipped

    fake = tmp_path / "site-packages" / "harness"
    fake.mkdir(parents=True)
    (tmp_path / "site-packages" / "configs").mkdir()  # some other project's folder
    (tmp_path / "site-packages" / "configs" / "evil.yaml").write_text("name: evil\n")
    monkeypatch.setattr(shipped, "_HERE", fake)
    assert shipped.configs_dir() is None and shipped.shipped_configs() == {}
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match="shipped: none"):
        config_path("evil")


# -- harness init ------------------------------------------------------------------------------
def test_init_writes_a_bot_and_a_config_that_run(tmp_path, cli):
    folder = tmp_path / "new" / "bots"  # created, parents too
    done = cli("init", str(folder))
    assert done.exit_code == 0, done.output
    assert sorted(p.name for p in folder.iterdir()) == [BOT_FILE, CONFIG_FILE]
    config = load_config(folder / CONFIG_FILE)
    assert [e.name for e in config.entrants][0] == "my-bot"
    bot = f"{folder / BOT_FILE}:MyBot"
    assert play_game([bot, "greedy"], seed=3).over
    # The printed next step runs as printed (fewer deals: the test's time).
    args = [str(folder / CONFIG_FILE), deals_option(), "2", "--workers", "0", "--no-report"]
    args += ["--out", str(tmp_path / "results")]
    run = cli("tourney", *args)
    assert run.exit_code == 0, run.output
    assert "my-bot" in run.output and "Run folder" in run.output


def test_the_starter_bot_uses_only_the_public_api():
    source = (ROOT / "harness" / "commands" / "init.py").read_text()
    from harness.commands.init import BOT

    assert BOT in source
    imports = [n for n in ast.walk(ast.parse(BOT)) if isinstance(n, (ast.Import, ast.ImportFrom))]
    modules = {n.module for n in imports if isinstance(n, ast.ImportFrom)}
    assert modules <= {"__future__", "harness.strategy"}
    assert not [n for n in imports if isinstance(n, ast.Import)]


@pytest.mark.parametrize("existing", [[BOT_FILE], [CONFIG_FILE], [BOT_FILE, CONFIG_FILE]])
def test_init_never_overwrites(existing, tmp_path, cli):
    for name in existing:
        (tmp_path / name).write_text("mine\n")
    done = cli("init", str(tmp_path))
    assert done.exit_code == 2 and done.output.count("\n") == 1
    assert "nothing written" in done.output and "Traceback" not in done.output
    for name in existing:
        assert (tmp_path / name).read_text() == "mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(existing)  # nor the other


def test_init_does_not_write_through_a_dangling_symlink(tmp_path):
    target = tmp_path / "elsewhere.py"
    (tmp_path / BOT_FILE).symlink_to(target)
    with pytest.raises(ConfigError, match="already exists"):
        write_starter(tmp_path)
    assert not target.exists() and not (tmp_path / CONFIG_FILE).exists()


def test_init_into_a_file_is_one_line(tmp_path, cli):
    (tmp_path / "afile").write_text("x")
    done = cli("init", str(tmp_path / "afile"))
    assert done.exit_code == 2 and done.output.count("\n") == 1


def test_init_defaults_to_the_current_folder(tmp_path, monkeypatch, cli):
    monkeypatch.chdir(tmp_path)
    assert cli("init").exit_code == 0
    assert (tmp_path / BOT_FILE).is_file() and (tmp_path / CONFIG_FILE).is_file()


# -- python -m harness ------------------------------------------------------------------------
def test_python_dash_m_harness(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-m", "harness", "--help"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "Usage: harness " in done.stdout
    for command in ("tourney", "init", "strategies", "play"):
        assert f"  {command} " in done.stdout


def test_the_readmes_config_path_is_the_shipped_config_in_a_checkout():
    """The README's first command runs `harness tourney configs/round_robin.yaml` in the
    checkout: configs/ at the root is a link to harness/configs/, where the shipped
    configs live, so that path is the shipped file itself."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "harness tourney configs/round_robin.yaml" in readme.split("## ", 2)[1]
    linked = ROOT / "configs" / "round_robin.yaml"
    assert (ROOT / "configs").is_symlink()
    assert linked.resolve() == shipped_configs()["round_robin"].resolve()
    via_link, shipped = load_config(linked), load_config(shipped_configs()["round_robin"])
    assert dataclasses.replace(via_link, source=shipped.source) == shipped  # but its path
