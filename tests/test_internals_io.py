"""Internals of the io layer that no public call shows on its own.

Every test here imports a private module on purpose, because what it checks cannot be seen through
``md.read_verdicts`` or the ``memdiag`` command alone: detection picks the *first* layout whose
sniffer accepts a file, so that no second layout also claims it can only be asked of the sniffers.
"""

from __future__ import annotations

from memdiag.io.readers import FORMATS, load

#: The verdict releases of ../shared/data/real and the layout that reads each (other folders there
#: hold datasets, audits and judge studies that no verdict layout claims; they are read by recipes).
RELEASES = {
    "Backboard-io__Backboard-Locomo-Benchmark": "backboard-locomo",
    "getzep__zep-papers": "zep-locomo",
    "memodb-io__memobase": "mem0-locomo",
    "saxenauts__persona": "persona-longmemeval",
    "trpc-group__trpc-agent-go": "trpc-locomo",
}


def test_every_real_file_is_claimed_by_exactly_its_own_layout(real_data):
    files = sorted(p for folder in RELEASES for p in (real_data / folder).rglob("*")
                   if p.is_file() and p.name != "SOURCE.md")
    assert len(files) == 32
    for path in files:
        content = load(path)
        claimed = [fmt.NAME for fmt in FORMATS if fmt.sniff(path, content)]
        assert claimed == [RELEASES[path.relative_to(real_data).parts[0]]], path
