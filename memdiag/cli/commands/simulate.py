"""``memdiag simulate``: the synthetic example data (known truth) written into a folder."""

from __future__ import annotations

import argparse
from pathlib import Path

from memdiag.cli import groups, values


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The folder, the seed and ``--force``."""
    p.add_argument("--write", metavar="DIR", required=True, help="folder to write into, e.g. data/example")
    p.add_argument("--seed", type=values.seed, help="seed (default: the bundled example's seed)")
    groups.add_force(p, "the example files in a --write folder that holds files")


def run(args: argparse.Namespace) -> int:
    """:func:`memdiag.synthetic.write_example`; prints each file written."""
    from memdiag.synthetic import EXAMPLE_SEED, write_example

    folder = Path(args.write)
    if folder.exists() and not folder.is_dir():
        raise FileExistsError(17, "is a file; give a folder to write the example data into", str(folder))
    if folder.is_dir() and any(folder.iterdir()) and not args.force:
        raise FileExistsError(17, "is a folder that holds files; memdiag does not write into it. Choose an "
                                  "empty or new folder, or pass --force to overwrite the example files in it",
                              str(folder))
    for path in write_example(args.write, seed=EXAMPLE_SEED if args.seed is None else args.seed):
        print(path)
    return 0
