"""Merging coders' project files into one project: the merge itself, its conflicts and
what it reports (:mod:`.merging`), what it takes from a file it does not trust
(:mod:`.guard`), every staged row checked as the API checks it (:mod:`.rows`) and the
codebook version a merged value records (:mod:`.versions`). Its SQL is
:mod:`...store.merge`, the words the command line offers :mod:`...domain.merging`."""
