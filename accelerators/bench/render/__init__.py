"""Rendering: a report as pictures and pages (the report's model is :mod:`.report`).

The roofline's geometry, pure arithmetic (``_roofline``), its chart (``_plot``), a
self-contained HTML page of a report for Flyte Decks and Airflow views (``_html``) and the
history chart of a fleet's trends (``_history_plot``). matplotlib is imported when a chart is
drawn, never by importing this package.

A floor of its own rather than part of :mod:`.report`: the report's model is the bench's
lowest floor, which :mod:`.history` stores, while the history chart reads :mod:`.history`.
"""
