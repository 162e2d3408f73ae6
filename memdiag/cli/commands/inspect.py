"""``memdiag inspect``: the structure of files no reader recognises, and a draft recipe for them."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from memdiag.cli import groups


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The files, where the draft recipe goes, ``--force`` and the dataset."""
    p.add_argument("files", nargs="+", metavar="FILES", help="files, folders or glob patterns of one release")
    p.add_argument("--write", metavar="YAML", help="write the draft recipe here (relative paths: put it in the "
                                                   "release folder)")
    groups.add_force(p, "an existing --write file")
    p.add_argument("--dataset", metavar="PATH",
                   help="the benchmark's dataset file (LoCoMo-10: locomo10.json), for records without ids: the "
                        "draft matches them by conversation and question text (dataset: in the recipe)")


def run(args: argparse.Namespace) -> int:
    """What the files hold, printed; with ``--write`` the draft recipe written."""
    from memdiag.io.outputs import check_outputs, write_file
    from memdiag.io.readers._inspect import inspect

    if args.write:  # the rules of every other output, before anything is read
        check_outputs([args.write], [f for f in args.files if os.path.isfile(f)]
                      + ([args.dataset] if args.dataset else []), force=args.force)
    found = inspect(args.files, recipe_dir=Path(args.write).resolve().parent if args.write else None,
                    dataset=args.dataset)
    sys.stdout.write(found.text)
    if args.write:
        target = Path(args.write)
        check_outputs([target], [f for f in args.files if os.path.isfile(f)], force=args.force)  # + files read
        write_file(target, found.recipe)
        print(f"draft recipe written to {target}" + ("" if found.complete else
              " (it needs your answers: see 'could not decide' above)"))
    return 0
