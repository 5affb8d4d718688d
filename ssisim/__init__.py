"""ssisim: a page-level simulator of z/VM SSI clusters, paging and Live Guest Relocation."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ssisim")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"
