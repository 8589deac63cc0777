"""The package version, at the bottom layer so that game records can name it."""

__version__ = "0.2.0"
