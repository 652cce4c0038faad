"""The report's words: :mod:`.render` (report.md and report.html from a summary;
re-exports its parts), :mod:`.formats` (numbers as text), :mod:`.page` (the blocks and
their writers: Markdown, HTML, the terminal's tables and width), :mod:`.run_page` and
:mod:`.compare_page` (the two reports) and :mod:`.standings_text` (the one terminal
standings table)."""
