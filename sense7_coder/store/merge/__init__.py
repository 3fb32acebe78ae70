"""SQL for merging another project file into this one: the source opened read-only, its
rows staged in TEMP tables and compared and inserted set-wise (:mod:`.staging`), and what
is taken from a file that is not trusted (:mod:`.guard`)."""
