"""The one configuration loader: finds the shipped ``config/`` and reads its TOML files.

The shipped configuration is installed inside the package (``appliance/_config``)
and, in a source checkout, is the repository's ``config/``; a ``--config DIR``
given by the operator takes precedence over both.
"""

from __future__ import annotations

import importlib.resources
import tomllib
from pathlib import Path

from .game.rules import HouseRules, HouseRulesError, UnknownHouseError

DEFAULT_HOUSE = "general"


def shipped_config_dir() -> Path:
    """The configuration that ships with the package."""
    installed = Path(str(importlib.resources.files("appliance"))) / "_config"
    if (installed / "houses").is_dir():
        return installed
    return Path(__file__).resolve().parent.parent / "config"


def read_toml(path: Path) -> dict:
    """Parse one TOML file; a syntax error names the file and line."""
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as err:
        raise HouseRulesError(f"{path}: {err}") from None


def house_files(config_dir: Path | None = None) -> dict[str, Path]:
    """House key (file stem) -> rules file."""
    folder = (config_dir or shipped_config_dir()) / "houses"
    return {path.stem: path for path in sorted(folder.glob("*.toml"))}


def load_house(name: str = DEFAULT_HOUSE, config_dir: Path | None = None) -> HouseRules:
    """A house by file stem (``capitol``) or by its name (``Capitol Casino``), or a path to a file."""
    candidate = Path(name)
    if candidate.suffix == ".toml" and candidate.is_file():
        return HouseRules.from_mapping(read_toml(candidate), str(candidate), candidate.stem)
    files = house_files(config_dir)
    wanted = name.strip().lower()
    for key, path in files.items():
        if wanted == key:
            return HouseRules.from_mapping(read_toml(path), str(path), key)
    for key, path in files.items():
        rules = HouseRules.from_mapping(read_toml(path), str(path), key)
        if rules.name.lower() == wanted:
            return rules
    raise UnknownHouseError(f"unknown house {name!r}: expected one of {', '.join(files) or '(none installed)'}")


def load_all_houses(config_dir: Path | None = None) -> dict[str, HouseRules]:
    return {
        key: HouseRules.from_mapping(read_toml(path), str(path), key)
        for key, path in house_files(config_dir).items()
    }
