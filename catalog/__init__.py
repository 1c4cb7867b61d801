"""The catalog of generated frameworks (SQLite store, search, web UI); not built yet."""
