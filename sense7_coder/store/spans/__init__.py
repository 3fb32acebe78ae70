"""SQL of coded spans: the ``spans`` table's statements and bulk reads (:mod:`.table`),
spans read with their turn's text (:mod:`.texts`) and what span agreement reads, packed
into arrays (:mod:`.arrays`)."""
