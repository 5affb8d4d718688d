"""Bundled scenarios (TOML files); listed by ``ssisim scenarios``."""
