"""Every file memdiag reads or writes: the strict parsers, the verdict readers and recipes, side files, output paths."""
