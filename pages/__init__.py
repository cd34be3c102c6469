"""The HTML room: every template and static file the project renders into pages lives here."""
