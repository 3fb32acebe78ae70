"""A project's codebook: changing it without orphaning anyone's codings, reading and
writing codebook files (:mod:`.editing`), and its versions as a study reads them
(:mod:`.versions`). The codebook itself is :mod:`...domain.codebook`, its SQL
:mod:`...store.codes` and :mod:`...store.codebook_versions`."""
