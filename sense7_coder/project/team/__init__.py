"""Team work through a shared folder: the folder, its keys and the sealed files
(:mod:`.folder`), both sides of a sync (:mod:`.sync`), what flows back from the lead to the
coders (:mod:`.downstream`), what the window shows of it and when its poll syncs
(:mod:`.view`), and the team tables an export writes (:mod:`.tables`). The sealing is
:mod:`...domain.team_seal`, the SQL :mod:`...store.team`."""
