"""`lisan phrases export`, run as an operator runs it: a real process, a clean environment."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from lisan.core.locale import Locale
from lisan.phrases.catalog import CATALOG
from lisan.phrases.schemas import PhraseKey
from tests.fixtures.cli import LISAN, clean_env


def export(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*LISAN, "phrases", "export", *args],
        env=clean_env(**env),
        cwd=cwd,
        capture_output=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("language", ["am-ET", "en-US"])
def test_export_prints_the_catalog_as_utf8_json(tmp_path: Path, language: str) -> None:
    result = export(tmp_path, "--language", language)
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode("utf-8")
    exported = json.loads(text)
    assert list(exported) == [key.value for key in PhraseKey]
    assert exported == {key.value: line for key, line in CATALOG[Locale(language)].items()}
    # Readable as written: indented, and Ethiopic as itself, not \u escapes.
    assert "\\u" not in text
    assert text.startswith('{\n  "ACK": ')
    assert text.endswith("}\n")


def test_ethiopic_survives_a_non_utf8_locale(tmp_path: Path) -> None:
    result = export(tmp_path, "--language", "am-ET", LANG="C", LC_ALL="C", PYTHONIOENCODING="ascii")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.decode("utf-8"))["ACK"] == "እሺ።"


def test_without_a_language_it_is_am_et(tmp_path: Path) -> None:
    result = export(tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.decode("utf-8"))["ERR_BILLING"] == "የደንበኝነት ምዝገባዎ ንቁ አይደለም።"


def test_export_needs_no_database(tmp_path: Path) -> None:
    result = export(
        tmp_path,
        "--language",
        "en-US",
        LISAN_DATABASE_URL="postgresql+asyncpg://nobody@127.0.0.1:1/x",
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["ACK"] == "Okay."
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("language", ["fr-FR", "am", "", "AM-ET"])
def test_another_language_exits_2_and_prints_nothing(tmp_path: Path, language: str) -> None:
    result = export(tmp_path, "--language", language)
    assert result.returncode == 2
    assert result.stdout == b""
    assert b"--language" in result.stderr
