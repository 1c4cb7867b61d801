"""The catalog of generated frameworks: SQLite store, search, diff, bundles and a web UI.

`Catalog` (store.py) holds `Entry` values (entry.py); queries are `Query` values (query.py).
The web UI (web/) and bundles (bundle.py) read framework files only through files.py.
"""
