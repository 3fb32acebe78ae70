"""Codebooks (pure Python): the codes coders apply, their levels, scales and guidance, the
codebook file format and its checks (:mod:`.codes`), and what makes a code's meaning and
what a new version changed (:mod:`.diff`). The project's codebook is changed through
:mod:`...project.codebook`, stored by :mod:`...store.codes` and
:mod:`...store.codebook_versions`."""
