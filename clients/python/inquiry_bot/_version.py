"""The package's version, read by pyproject.toml (setuptools' dynamic version) and the User-Agent."""

__version__ = "0.2.0"
