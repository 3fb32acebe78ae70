"""REFI-QDA exchange (pure Python): codebooks as ``.qdc`` (:mod:`.qdc`, which also
describes the mapping), coded projects written as ``.qdpx`` (:mod:`.writing`) and read back
from any tool (:mod:`.reading`, with what other tools write their own way in
:mod:`.variants`)."""
