# _version.py: the package's version, the project's (CMake checks they agree;
# pyproject.toml reads it).
__version__ = "0.1.0"
