"""Recipes handed to ``md.read_verdicts`` as a user hands them: a mapping written as a recipe file in
a folder (its paths are then relative to that folder), or a bundled recipe pointed at a release
folder elsewhere (its file patterns made absolute)."""

from __future__ import annotations

import glob
from pathlib import Path

import yaml


def write_recipe(folder: Path, recipe: dict) -> Path:
    """``recipe`` written as ``folder/recipe.yaml``."""
    path = folder / "recipe.yaml"
    path.write_text(yaml.safe_dump(recipe, sort_keys=False), encoding="utf-8")
    return path


def pointed_at(recipe: Path, base: Path) -> dict:
    """The recipe file ``recipe`` with every ``files`` pattern of its sources and joins under ``base``."""
    value = yaml.safe_load(recipe.read_text(encoding="utf-8"))
    for group in value.get("sources", []) + value.get("join", []):
        patterns = [group["files"]] if isinstance(group["files"], str) else group["files"]
        group["files"] = [str(base / pattern) for pattern in patterns]
    return value


def source_files(recipe: dict) -> list[Path]:
    """The files the sources' patterns of ``recipe`` (absolute) match, as ``glob`` finds them."""
    return sorted({Path(p) for group in recipe["sources"] for pattern in group["files"]
                   for p in glob.glob(pattern, recursive=True)})
