"""LISAN_PROVIDER=local: offline speech recognition and planning, no network."""

from lisan.providers.local.provider import LocalProvider

__all__ = ["LocalProvider"]
