"""What each export format needs to know of its tool: file names, task names, label conventions
and (MTEB) the task module written beside the metadata. ``cards/export.py`` writes the files."""
