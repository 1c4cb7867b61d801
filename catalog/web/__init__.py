"""The catalog's web UI, served locally.

A stdlib HTTP server (server.py), routing and views (app.py), pages from jinja2 templates
(pages.py) and vendored static assets (static/).
"""
