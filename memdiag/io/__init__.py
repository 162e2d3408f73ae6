"""Every file memdiag reads or writes: the strict parsers, the verdict readers and recipes, side files, output paths.

Every file is opened by :mod:`memdiag.io.opening` (compression by name or first bytes, the
decompressed-size cap, binary content and UTF-8) and parsed by one strict reader — JSON, JSON lines
and YAML by :mod:`memdiag.io.strict` (a key twice, an alias bomb), CSV side files as text by
:mod:`memdiag.io.csv_text` (no type guessing, a column or a header line twice) — so every error names
the file, the record and the field and says what to do. On top, one module per kind of file:

- verdicts: :mod:`~memdiag.io.readers` (one module per released layout, recipes, inspect),
  :mod:`~memdiag.io.verdicts` (``read_verdicts``) and :mod:`~memdiag.io.canonical` (``check``: the
  hard rules of the canonical table, for files and hand-built frames alike);
- side files: :mod:`~memdiag.io.claims`, :mod:`~memdiag.io.summaries`, :mod:`~memdiag.io.gold_errors`,
  :mod:`~memdiag.io.write_log` and :mod:`~memdiag.io.ingestion_log` (through :mod:`~memdiag.io.logs`),
  :mod:`~memdiag.io.systems_table`, :mod:`~memdiag.io.query_lists`;
- outputs: :mod:`~memdiag.io.outputs` (which paths a command may write) and :mod:`~memdiag.io.signals`.
"""
