"""LISAN_PROVIDER=openai: any OpenAI-compatible server, for transcription (`transcription`)
and for planning with a strict JSON schema (`planning`); its error answers read in `errors`,
the calls made in `provider`."""

from lisan.providers.openai.provider import OpenAIProvider

__all__ = ["OpenAIProvider"]
