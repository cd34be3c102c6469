"""Everything that renders HTML: the report, the replay viewer, the arena's pages, with their templates and static files."""
