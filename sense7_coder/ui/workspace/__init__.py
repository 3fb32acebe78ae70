"""The coding workspace: conversation list, transcript, coding panel, users' ratings, memo."""
