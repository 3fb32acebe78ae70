"""Storage layer: the only place with SQL. One SQLite file per project, via sqlite-utils."""
