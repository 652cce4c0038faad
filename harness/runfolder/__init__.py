"""The run folder: the one contract between the runner that writes it and every reader.

A ground-floor room (it imports nothing above :mod:`harness.errors` and
:mod:`harness.game.seating`): the tournament runner's writer (:mod:`harness.tourney.storage`:
creating, resuming, reusing) and the readers (reports, compare, :mod:`harness.results`)
all go through it, so the folder's shape is written down once.

- :mod:`~harness.runfolder.layout`: file and folder names, writing a file whole.
- :mod:`~harness.runfolder.manifest`: ``manifest.jsonl``, read with the torn-line rule,
  its lines as appended, what a line claims.
- :mod:`~harness.runfolder.parts`: a chunk's arrays as a part file, a part read back
  verified against its line, the complete parts of a folder.
- :mod:`~harness.runfolder.schema`: the columns and their types, defined once (the Arrow
  schema, the chunk arrays' typecodes, the status and error-kind codes by name).
- :mod:`~harness.runfolder.tables`: a run's table list, in ``run.json`` or, for a plan of
  more tables than ``CHUNK_CAP``, in ``tables.parquet`` beside it (checked when read).

Nothing here imports pyarrow at import time: the engine's processes import the schema.
"""
