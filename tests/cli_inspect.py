"""``inspect(items)``: ``memdiag inspect`` run in this process as a user runs it, its output read back
into the draft recipe, the role of each file and whether the draft needs an answer from the user."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cli_run import run

#: The first words of each role in the "files by role" list.
ROLES = {"verdicts": "verdicts", "side file": "side", "summary": "summary", "manifest or other file": "manifest",
         "no verdicts": "no verdicts"}


@dataclass
class Draft:
    """What ``memdiag inspect`` printed (``text``) and drafted (``recipe``)."""

    text: str
    recipe: str

    @property
    def complete(self) -> bool:
        """Whether every choice was made: nothing is listed under "could not decide"."""
        return "\ncould not decide:\n" not in self.text

    @property
    def roles(self) -> dict[str, str]:
        """File name -> its role (a key of :data:`ROLES`' values) from the "files by role" list."""
        section = self.text.split("\nfiles by role:\n", 1)[1]
        out = {}
        for line in section.splitlines():
            if not line.startswith("  "):
                break
            path, role = line.strip().split(": ", 1)
            out[Path(path).name] = next(kind for words, kind in ROLES.items() if role.startswith(words))
        return out

    def candidates(self, what: str) -> list[str]:
        """The first file's ``what`` candidates (``verdict``, ``judge``, ...), as listed."""
        for line in self.text.splitlines()[1:]:     # the lines under the first file's name
            if not line.startswith(" "):
                break
            if line.startswith(f"  {what} candidates: "):
                return line.split(": ", 1)[1].split(", ")
        return []


def inspect(items: list[str], recipe_dir: Path | None = None, dataset: Path | None = None) -> Draft:
    """``memdiag inspect ITEMS [--dataset DATASET]``, with ``--write RECIPE_DIR/draft.yaml --force``
    when ``recipe_dir`` is given (the draft's paths are then relative to it); otherwise the draft is
    read from the printed text (its paths relative to the folder holding every file)."""
    argv = ["inspect", *items, *(["--dataset", dataset] if dataset is not None else [])]
    if recipe_dir is not None:
        recipe_dir.mkdir(parents=True, exist_ok=True)
        argv += ["--write", recipe_dir / "draft.yaml", "--force"]
    code, out, err = run(*argv)
    assert code == 0 and err == "", err
    if recipe_dir is not None:
        return Draft(out, (recipe_dir / "draft.yaml").read_text(encoding="utf-8"))
    return Draft(out, out.split("\ndraft recipe:\n", 1)[1].split("\n\n", 1)[0] + "\n")
