"""The offline provider's second ear: Whisper tiny.en scores the commands a screen allows, and
the service acts only when it and pocketsphinx agree, or when Whisper alone is sure; its weights
are a pinned dependency, checked by hash, and without them nothing is acted on."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from lisan.core.locale import Locale
from lisan.providers.local.grammar import Slots
from lisan.providers.local.hearing import candidates, judge
from lisan.providers.local.sounds import said_in_latin
from lisan.providers.local.whisper import weights
from lisan.providers.local.whisper.features import N_MELS, log_mel
from lisan.providers.local.whisper.scorer import Scored, Scorer
from lisan.testing.speech import padded, spoken

SLOTS = Slots(
    labels=(("save",), ("settings",), ("search",), ("print",), ("create", "shortcut")),
    apps=(("telegram",),),
    names=(("abebe",), ("kebede",)),
)


def _samples(text: str, language: str = "en-US") -> np.ndarray:
    pcm = padded(spoken(text, language), 2.0)
    return np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0


@pytest.mark.parametrize("said", ["tap print", "call kebede", "open telegram", "go back"])
def test_whisper_ranks_the_command_said_first_among_the_screens_commands(
    whisper_scorer: Scorer, said: str
) -> None:
    """Real espeak-ng speech of a command: of every command the screen allows, Whisper scores
    the one said highest."""
    heard = candidates(SLOTS, Locale.EN_US)
    scored = whisper_scorer.score(whisper_scorer.listen(_samples(said)), [c.spoken for c in heard])
    assert heard[scored.best].text == said


def test_a_candidate_longer_than_any_command_is_never_the_best(whisper_scorer: Scorer) -> None:
    """Screen text can make a candidate of hundreds of tokens: it is not scored (past the
    decoder's 448 positions there are none), and never chosen."""
    listening = whisper_scorer.listen(_samples("go back"))
    huge = "tap " + " ".join(["supercalifragilistic"] * 200)
    scored = whisper_scorer.score(listening, ["go back", huge])
    assert scored.best == 0
    assert scored.scores[1] == float("-inf")


def test_the_verb_is_the_one_whisper_hears(whisper_scorer: Scorer) -> None:
    """The candidates are said with the verb Whisper hears first ("press", not "tap")."""
    listening = whisper_scorer.listen(_samples("press settings"))
    assert (
        whisper_scorer.first_word(listening, ("tap", "press", "click", "select", "touch"))
        == "press"
    )


def test_log_mel_has_whispers_shape_and_scale() -> None:
    """80 bands by the frames asked for, scaled to Whisper's range (at most 8 below the peak)."""
    mel = log_mel(_samples("go home"), 300)
    assert mel.shape == (N_MELS, 300)
    assert mel.max() - mel.min() <= 2.0 + 1e-6
    assert -1.5 < float(mel.max()) < 3.0


def _scored(*scores: float) -> Scored:
    return Scored(tuple(scores))


def test_the_candidates_carry_the_words_pocketsphinx_heard_around_the_name() -> None:
    """The action pocketsphinx heard is said, for every name, in the shape it heard it ("press
    the {} button"), so Whisper chooses by the name alone; other actions with Whisper's verb."""
    heard = candidates(SLOTS, Locale.EN_US, decoded="press the save button", verbs=VERBS)
    texts = {c.text for c in heard}
    assert {"press the save button", "press the print button", "dial kebede"} <= texts
    assert "tap save" not in texts


VERBS = {"tap": "tap", "open": "open", "call": "dial"}


def test_english_acts_when_the_two_ears_agree_clearly_enough() -> None:
    """pocketsphinx's command and Whisper's best name the same intent: acted on, as said, when
    Whisper's score of it reaches the floor (a name's, or the higher one of a command that
    names nothing); below it, nothing is heard."""
    heard = candidates(SLOTS, Locale.EN_US, decoded="press the save button", verbs=VERBS)
    scores = [-5.0] * len(heard)
    scores[next(i for i, c in enumerate(heard) if c.text == "press the save button")] = -1.5
    verdict = judge("press the save button", _scored(*scores), heard, Locale.EN_US, floor=-2.0)
    faint = judge("press the save button", _scored(*scores), heard, Locale.EN_US, floor=-1.0)
    assert (verdict.text, verdict.how) == ("press the save button", "agreed")
    assert (faint.text, faint.how) == ("", "agreed_too_faintly")
    back = candidates(SLOTS, Locale.EN_US, decoded="go back", verbs=VERBS)
    scores = [-5.0] * len(back)
    scores[next(i for i, c in enumerate(back) if c.text == "go back")] = -2.8
    unnamed = judge("go back", _scored(*scores), back, Locale.EN_US, floor=-3.0, fixed_floor=-2.5)
    assert unnamed.text == ""  # above a name's floor, below that of a command naming nothing


def test_english_trusts_whisper_alone_only_above_its_threshold() -> None:
    """When the ears disagree, Whisper's best is acted on only when its score is confident;
    otherwise nothing is heard."""
    heard = candidates(SLOTS, Locale.EN_US, decoded="tap search", verbs=VERBS)
    scores = [-3.0] * len(heard)
    scores[next(i for i, c in enumerate(heard) if c.text == "tap settings")] = 0.5
    sure = judge("tap search", _scored(*scores), heard, Locale.EN_US, confident=0.0)
    unsure = judge("tap search", _scored(*scores), heard, Locale.EN_US, confident=1.0)
    assert (sure.text, sure.how) == ("tap settings", "whisper")
    assert (unsure.text, unsure.how) == ("", "disagreed")


def test_pocketsphinxs_words_for_a_name_not_on_the_screen_are_no_witness() -> None:
    """pocketsphinx's hypothesis is scored even when its name is none of the screen's, but
    agreement is read among the screen's own commands: its words scoring best make nothing."""
    heard = candidates(SLOTS, Locale.EN_US, decoded="tap the flashlight", verbs=VERBS)
    own = next(i for i, c in enumerate(heard) if c.decoded)
    scores = [-3.0] * len(heard)
    scores[own] = 1.0
    verdict = judge("tap the flashlight", _scored(*scores), heard, Locale.EN_US, confident=0.0)
    assert verdict.text == ""


def test_amharic_acts_on_whispers_best_and_asks_about_a_command_within_reach() -> None:
    """Amharic: pocketsphinx's command is acted on when Whisper, hearing the candidates in
    Latin letters, scores it best; asked about (no score: the plan is confirmed) when it is
    within reach of the best; else nothing is heard."""
    amharic = Slots(labels=(("ፍለጋ",), ("ቅንብሮች",)), apps=(), names=())
    heard = candidates(amharic, Locale.AM_ET, decoded="ፍለጋ ንካ")
    mine = next(i for i, c in enumerate(heard) if c.text == "ፍለጋ ንካ")
    other = (mine + 1) % len(heard)
    scores = [-3.0] * len(heard)
    scores[mine] = -1.0
    assert judge("ፍለጋ ንካ", _scored(*scores), heard, Locale.AM_ET).how == "agreed"
    scores[mine], scores[other] = -2.0, -1.0
    near = judge("ፍለጋ ንካ", _scored(*scores), heard, Locale.AM_ET, reach=1.5)
    far = judge("ፍለጋ ንካ", _scored(*scores), heard, Locale.AM_ET, reach=0.5)
    assert (near.text, near.how) == ("ፍለጋ ንካ", "near")
    assert far.text == ""
    assert all(c.spoken.isascii() for c in heard)


@pytest.mark.parametrize(
    ("amharic", "latin"),
    [
        ("ክፈት", "kifet"),  # a sixth-order consonant inside a word is said with its vowel
        ("ወደ ላይ ሸብልል", "wede lay shebilil"),  # ... and at a word's end without
        ("ቅንብሮች", "kinibiroch"),  # no ejective mark: an English model never heard one
        ("settings ንካ", "settings nika"),  # Latin words stay as they are
    ],
)
def test_amharic_is_written_for_whisper_as_it_is_said(amharic: str, latin: str) -> None:
    """Whisper hears Amharic candidates in Latin letters spelt as they are said, the vowel a
    sixth-order consonant takes inside a word included."""
    assert said_in_latin(amharic) == latin


def test_the_weights_are_the_pinned_files() -> None:
    """The installed weights are the pinned version's files, byte for byte."""
    assert weights.problem() is None


def test_a_corrupt_or_missing_weights_file_is_refused(tmp_path: Path) -> None:
    """A weights file that is missing or not the pinned one is refused with a reason, never
    scored with."""
    assert weights.problem(tmp_path) is not None
    (tmp_path / "model.bin").write_bytes(b"not a model")
    (tmp_path / "tokenizer.json").write_bytes(b"{}")
    assert "SHA-256" in str(weights.problem(tmp_path))
    with pytest.raises(weights.WeightsUnavailable):
        weights.load(tmp_path)


def test_a_truncated_model_file_is_unreadable(tmp_path: Path) -> None:
    """A model file cut short (whatever hash it is pinned by) reads as unavailable, not as a
    crash."""
    whole = (weights.model_dir() / "model.bin").read_bytes()
    (tmp_path / "model.bin").write_bytes(whole[:4096])
    pinned = {"model.bin": hashlib.sha256(whole[:4096]).hexdigest()}
    with pytest.raises(weights.WeightsUnavailable, match="unreadable"):
        weights.load(tmp_path, sha256=pinned)
