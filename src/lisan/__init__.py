"""Lisan: the backend of a voice-control assistant for Android phones (am-ET, en-US)."""

__version__ = "0.1.0"
CONTRACT_VERSION = "1.1.0"
