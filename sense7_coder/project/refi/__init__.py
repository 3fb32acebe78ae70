"""REFI-QDA projects (``.qdpx``) into a sense7-coder project: the import in one
transaction (:mod:`.importing`) and what a sense7-coder ``.qdpx`` carries for itself
(:mod:`.extra`). Writing one is :mod:`..exchange`."""
