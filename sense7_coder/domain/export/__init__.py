"""Exporting tables: the kinds (kinds.py, the one list of them, light), the tidy tables and
their CSV rules (tables.py), and the ``.xlsx`` and ``.sav`` writers (formats.py)."""
