"""Analysis windows: agreement (figures and plot), reconciliation, export and merge.

Opened from the main window's Analysis menu (:class:`.menu.AnalysisMenu`); each takes
``(project, parent)`` and runs its long jobs on the TaskRunner with its own connection.
The modules are imported when first used, so importing this package costs nothing.
"""
