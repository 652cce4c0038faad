"""The report's charts, drawn with matplotlib from a run's summary: :mod:`.plots` (every
chart of a report; re-exports its parts), :mod:`.run_charts` and :mod:`.luck_charts` (one
run's), :mod:`.compare_charts` (a comparison's), :mod:`.chart_style` (what they share)
and :mod:`.colours` (the strategies' colours)."""
