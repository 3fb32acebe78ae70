"""Span coding through the project: adding, resizing, recoding and deleting spans with
their checks and undo (:mod:`.editing`), agreement on span codes (:mod:`.agreement`, with
Mathet's γ in :mod:`.gamma`), spans for retrieval, queries and co-occurrence
(:mod:`.queries`) and spans in the long export (:mod:`.export`). The span itself is
:mod:`...domain.spans`, the SQL :mod:`...store.spans`."""
