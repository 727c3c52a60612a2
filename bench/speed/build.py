"""A build of the service beside another (`bench.builds`, `bench.commands --beside`): a source
tree holding `src/lisan` and the `LISAN_*` settings it runs with, as NAME=SRC[:KEY=VALUE,...]
names it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bench.kit.servers import ROOT


@dataclass(frozen=True)
class Build:
    name: str
    source: Path
    settings: dict[str, str]

    @classmethod
    def parse(cls, text: str) -> Build:
        name, _, rest = text.partition("=")
        source, _, settings = rest.partition(":")
        pairs = dict(item.split("=", 1) for item in settings.split(",") if item)
        path = (ROOT if source in ("", ".") else Path(source)).resolve()
        if not (path / "src" / "lisan").is_dir():
            raise SystemExit(f"{name}: no src/lisan under {path}")
        return cls(name, path, pairs)
