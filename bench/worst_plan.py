"""The worst planner answer within the bounds: what checking it costs the service, in process.

    .venv/bin/python -m bench.worst_plan [--repeat 5] [--skip NAME ...]

A planner reads untrusted screen text, so its answer is an attacker's: this bench builds the
costliest answers a planner can give on the largest screen the contract allows (a 64 KB view
tree), with the longest transcript the service plans (1,000 characters), and times what
`POST /v1/commands` runs once a remote planner answered: the plan read out of the chat
completion (`providers.openai.planning.plan_from`), the plan rules, the naming check
(`plans.naming`) and the answer's composition:

- `2000 steps`: two thousand TAPs, each on a node of the screen (past the step bound);
- `20 taps`: a legal plan of twenty TAPs on the screen's last rows (the deepest look-ups);
- `20 scrolls`: a legal plan of twenty SCROLLs on rows inside the list (each finds its list);
- `20 icon taps`: twenty TAPs on unlabelled icons, each read through the row around it;
- `20 bare taps`: twenty TAPs on the unlabelled icons of a screen of the most lines 64 KB
  holds, with no text around them: each is read up to the whole screen, and asked;
- `20 deep taps`: twenty TAPs on the deepest icons of layouts nested as deep as 64 KB allows;
- `deep OK tap`: a TAP on the deepest icon of layouts nested as deep as 64 KB allows, each
  level saying only "OK" (no message): it is read through every layout up to the screen;
- `fence blanks`: an answer of a fence and 2,000 blank lines, never closed (a few thousand
  made the fence pattern of old take seconds: cubic); `fence blanks 256K`: the same filling
  the 256 KiB an answer may hold; `many fences`: 256 KiB of fence lines; `fenced padded`: a
  legal plan fenced and padded with blank lines to 256 KiB;
- `named, wordy`: one TAP on a clickable screen of near-identical words, with a transcript
  of 1,000 characters of near-identical words that name none of them (every pair compared);
  `named, word`: the same with one unbroken word on each side; `named, Ge'ez`: the same in
  Ge'ez, skeletons against skeletons; `id flood`: twenty TAPs whose ids every line of the
  screen quotes in its text;
- `error word`, `error blanks`, `error escapes`, `error words`, `error text`: a planner's 500
  answer as large as an answer may be (one unbroken word, escaped line breaks, JSON, percent
  and HTML escapes of Ge'ez, the transcript's near-identical words with a long `param`, a
  key-shaped body that is no JSON), read for its log line (`providers.openai.errors`) with a
  vocabulary of 500 terms and the screen and transcript as sent, all withheld.

Then the rules planner as the service runs it under local first (`commands.rules_first.rules_plan`,
with a remote provider and `LISAN_PLAN_LOCAL_FIRST` on, before any model is asked), on each
hostile screen above and on `rows` (a list of rows each with a "Delete" button, a search field,
a message field and a "Send" button), with the transcripts that make the rules work hardest:

- `tap near`: "tap" and two words a letter off the screen's words (a look-alike of many labels);
- `tap 12 words`: "tap" and eleven such words (`RULES_MAX_WORDS`, the longest the rules read);
- `search`: "search for" and near words; `type+send`: "type" near words "and send";
- `delete`: "delete" and the last row's label (on `rows`, the delete control of its row);
  `delete from`: "delete the" and its first six words "from my" and a near word (the most
  ways the rules read what is to be deleted: with and without "the", "my" and "from ...");
- `nothing`: "tap" and words no label comes near;
- `bare words`: twelve near words and no verb (a whole label said alone is looked for, with
  and without a closing "it"); `turn on`: "turn on" and ten near words (a switch looked for
  by label and by description, and its state read);
- `Amharic`: on the Ge'ez screen, near words and the verb ንካ (tap), and ሰርዝ (delete);
  `Amharic by sound`, `Amharic turn on`: on every screen, eleven Ge'ez words of English sounds
  and ንካ (tap) or አብራ (turn on): each label of the screen compared by sound, twice.

Reported per case: the median CPU (process time) and wall time over `--repeat` runs, and the
answer (status and reason, or the rules' plan: steps and whether asked). The goal is under 50
ms of CPU for each.
"""

from __future__ import annotations

import argparse
import statistics
import time
import uuid
from collections.abc import Callable
from typing import Any

import orjson

from lisan.commands.answers import answer, refusal
from lisan.commands.rules_first import RULES_MAX_WORDS, rules_plan
from lisan.commands.schemas import CommandStatus
from lisan.core.locale import Locale
from lisan.phrases.schemas import PhraseKey
from lisan.plans.naming import ask_unnamed_steps
from lisan.plans.rules import required_packages, validate_plan
from lisan.plans.safe import PlanRejected
from lisan.providers.base import ProviderBadAnswer
from lisan.providers.base import Screen as PhoneScreen
from lisan.providers.http import Answer
from lisan.providers.openai.errors import status_error
from lisan.providers.openai.planning import plan_from
from lisan.providers.openai.withholding import Sent
from lisan.screen.nodes import label
from lisan.screen.viewtree import ViewTree
from lisan.testing.openai_script import chat_completion

APP = "org.telegram.messenger"
SCREEN_BYTES = 65_536
ANSWER_BYTES = 256 * 1024
TRANSCRIPT_CHARS = 1_000


def big_screen(salt: int = 0) -> tuple[str, list[str]]:
    """A view tree just under 64 KB: a scrollable list of clickable rows; the row ids. `salt`
    changes every label, so no reading is remembered from an earlier run."""
    return _fill(
        ["[root] FrameLayout", "  [list] RecyclerView {scrollable}"],
        lambda index: (
            f'    [r{index}] LinearLayout desc="Chat {index}, {salt}" {{clickable}}',
            f'      [t{index}] TextView "Message preview {index}, quite long to read {salt}"',
            f"      [i{index}] ImageView",
        ),
    )


def icon_screen(salt: int = 0) -> tuple[str, list[str]]:
    """Rows that are not clickable, each with a text and a clickable icon with no label (the
    rows hold `r` ids, the icons `i` ids): a tap on an icon reads its row around it."""
    return _fill(
        ["[root] FrameLayout", "  [list] RecyclerView {scrollable}"],
        lambda index: (
            f"    [r{index}] LinearLayout",
            f'      [t{index}] TextView "Message preview {index}, quite long to read {salt}"',
            f"      [i{index}] ImageButton {{clickable}}",
        ),
    )


def bare_screen(salt: int = 0) -> tuple[str, list[str]]:
    """The most lines 64 KB holds: one clickable icon per short line, no text anywhere, so a
    tap on one finds nothing around it to read but the whole screen."""
    return _fill(
        ["[root] FrameLayout", f'  [head] TextView "{salt}"'],
        lambda index: (f"  [r{index}] V {{clickable}}",),
    )


def deep_screen(salt: int = 0) -> tuple[str, list[str]]:
    """Layouts nested as deep as 64 KB allows, each holding a clickable icon with no label and
    no text anywhere: a tap on the deepest reads every layout around it, up to the screen."""
    lines = [f'[root] FrameLayout desc="{salt}"']
    rows: list[str] = []
    size = len(lines[0]) + 1
    while True:
        depth = len(rows) + 1
        row = (
            f"{'  ' * depth}[r{len(rows)}] LinearLayout",
            f"{'  ' * depth}  [i{len(rows)}] V {{clickable}}",
        )
        size += sum(len(line) + 1 for line in row)
        if size > SCREEN_BYTES:
            break
        lines += row
        rows.append(f"r{len(rows)}")
    return "\n".join(lines), rows


def _fill(
    lines: list[str], row_lines: Callable[[int], tuple[str, ...]], *, reserve: int = 0
) -> tuple[str, list[str]]:
    size = reserve + sum(len(line) + 1 for line in lines)
    rows: list[str] = []
    while True:
        row = row_lines(len(rows))
        size += sum(len(line) + 1 for line in row)
        if size > SCREEN_BYTES:
            break
        lines += row
        rows.append(f"r{len(rows)}")
    return "\n".join(lines), rows


def step(action_type: str, target: str, payload: str | None = None) -> dict[str, Any]:
    return {
        "action_type": action_type,
        "target_node_id": target,
        "payload": payload,
        "is_destructive": False,
    }


def check(attack: Attack, summary: str) -> str:
    """What the route runs once a remote planner answered: the plan read out of the chat
    completion, the rules, the naming check, and the answer."""
    content, transcript = attack
    try:
        raw = plan_from(chat_completion(content))
    except ProviderBadAnswer:
        return "bad answer (502)"
    tree = ViewTree(summary)
    granted = required_packages(raw, APP)
    command_id = uuid.uuid4()
    try:
        safe = validate_plan(raw, tree, granted, current_package=APP)
    except PlanRejected as rejected:
        response = refusal(
            command_id, CommandStatus.REJECTED, rejected.reason, PhraseKey.ERR_REJECTED
        )
    else:
        safe = ask_unnamed_steps(safe, tree, transcript)
        response = answer(command_id, safe, tree, locale=Locale.EN_US, transcript_confident=True)
    response.to_json()
    return f"{response.status.value} {response.reprompt_reason or ''}".strip()


Screen = Callable[[int], tuple[str, list[str]]]
Attack = tuple[str, str]  # the answer's content, the transcript
Case = Callable[[list[str], int], Attack]


def timed(screen: Screen, case: Case, repeat: int) -> tuple[float, float, str]:
    """Median CPU and wall milliseconds over `repeat` runs, each on a screen of its own (cold)."""
    cpu, wall, outcome = [], [], ""
    for run in range(repeat):
        summary, rows = screen(run)
        attack = case(rows, run)
        cpu_start, wall_start = time.process_time(), time.perf_counter()
        outcome = check(attack, summary)
        cpu.append(time.process_time() - cpu_start)
        wall.append(time.perf_counter() - wall_start)
    return statistics.median(cpu) * 1000, statistics.median(wall) * 1000, outcome


def deep_ok_screen(salt: int = 0) -> tuple[str, list[str]]:
    """Layouts nested as deep as 64 KB allows, each saying only "OK" (no message of its own),
    the deepest holding a clickable icon with no label: a tap on it reads every layout around
    it, up to the screen."""
    lines = [f'[root] FrameLayout desc="{salt}"']
    depth, size = 1, len(lines[0]) + 1
    while True:
        level = (f"{'  ' * depth}[l{depth}] LinearLayout", f'{"  " * depth}  [o{depth}] T "OK"')
        if size + sum(len(line) + 1 for line in level) + 2 * depth + 24 > SCREEN_BYTES:
            break
        lines += level
        size += sum(len(line) + 1 for line in level)
        depth += 1
    lines.append(f"{'  ' * depth}[icon] V {{clickable}}")
    return "\n".join(lines), ["icon"]


def wordy_screen(salt: int = 0) -> tuple[str, list[str]]:
    """A clickable screen of near-identical words (ten a line): a tap on any line is a tap on
    the screen, which shows them all."""
    letters = "abcdefgh"

    def word(index: int) -> str:
        return "k" + "".join(letters[(index + salt) >> (3 * k) & 7] for k in range(5))

    return _fill(
        ["[root] FrameLayout {clickable}"],
        lambda index: (f'  [r{index}] T "{" ".join(word(index * 10 + k) for k in range(10))}"',),
    )


def word_screen(salt: int = 0) -> tuple[str, list[str]]:
    """A clickable screen showing one unbroken word as long as 64 KB allows."""
    head = '[root] FrameLayout {clickable}\n  [r0] T "'
    return head + f"k{salt}" + "q" * (SCREEN_BYTES - len(head) - 16) + '"', ["r0"]


GEEZ_SHOWN = "ቨዠፐጰ"  # consonant rows of the screen's words
GEEZ_HEARD = "ኘቸዘጘ"  # and of the transcript's: no skeleton of one is inside the other's


def geez_screen(salt: int = 0) -> tuple[str, list[str]]:
    """`wordy_screen` in Ge'ez: near-identical words of four syllables."""

    def word(index: int) -> str:
        index += salt
        return "".join(
            chr(ord(GEEZ_SHOWN[index >> (2 * k) & 3]) + (index >> k & 3)) for k in range(4)
        )

    return _fill(
        ["[root] FrameLayout {clickable}"],
        lambda index: (f'  [r{index}] T "{" ".join(word(index * 10 + k) for k in range(10))}"',),
    )


def id_flood_screen(salt: int = 0) -> tuple[str, list[str]]:
    """Twenty clickable rows at the bottom, and above them every line quotes their twenty ids
    in its text: each look-up of an id finds it on every line."""
    rows = [f"r{index}" for index in range(20)]
    quoted = " ".join(f"[{row}]" for row in rows)
    tail = [f'  [{row}] Button "Row {row} {salt}" {{clickable}}' for row in rows]
    lines, _ = _fill(
        ["[root] FrameLayout"],
        lambda index: (f'  [q{index}] T "{quoted}"',),
        reserve=sum(len(line) + 1 for line in tail),
    )
    return "\n".join([lines, *tail]), rows


def transcript(run: int, *, letters: str = "ijlmnopstuvwxyz", word_chars: int = 5) -> str:
    """1,000 characters of near-identical words, none on the screens above."""
    words: list[str] = []
    index = run * 7919
    while (len(words) + 1) * (word_chars + 1) <= TRANSCRIPT_CHARS:
        chosen = (letters[index // len(letters) ** k % len(letters)] for k in range(word_chars))
        words.append("".join(chosen))
        index += 1
    return " ".join(words)


def geez_transcript(run: int) -> str:
    """`transcript` in Ge'ez, of consonant rows the Ge'ez screen does not use."""
    syllables = "".join(chr(ord(row) + vowel) for row in GEEZ_HEARD for vowel in range(7))
    return transcript(run, letters=syllables, word_chars=3)


def fenced(body: str) -> str:
    return f"```json\n{body}\n```"


def answer_of(raw: dict[str, Any], run: int, heard: str | None = None) -> Attack:
    """A plain JSON answer, with a short transcript (or `heard`)."""
    return orjson.dumps(raw).decode(), heard or f"open chat {run}"


def padded(raw: dict[str, Any]) -> str:
    """The plan's JSON with blank lines before its closing brace, up to the answer bound."""
    body = orjson.dumps(raw).decode()
    return fenced(body[:-1] + "\n" * (ANSWER_BYTES - len(body) - 16) + "}")


CASES: dict[str, tuple[Screen, Case]] = {
    "2000 steps": (
        big_screen,
        lambda rows, run: answer_of(
            plan([step("TAP", rows[i % len(rows)]) for i in range(2000)]), run
        ),
    ),
    "20 taps": (
        big_screen,
        lambda rows, run: answer_of(plan([step("TAP", row) for row in rows[-20:]]), run),
    ),
    "20 scrolls": (
        big_screen,
        lambda rows, run: answer_of(
            plan([step("SCROLL", row.replace("r", "t"), "down") for row in rows[-20:]]), run
        ),
    ),
    "20 icon taps": (
        icon_screen,
        lambda rows, run: answer_of(
            plan([step("TAP", row.replace("r", "i")) for row in rows[-20:]]), run
        ),
    ),
    "20 bare taps": (
        bare_screen,
        lambda rows, run: answer_of(plan([step("TAP", row) for row in rows[-20:]]), run),
    ),
    "20 deep taps": (
        deep_screen,
        lambda rows, run: answer_of(
            plan([step("TAP", row.replace("r", "i")) for row in rows[-20:]]), run
        ),
    ),
    "deep OK tap": (
        deep_ok_screen,
        lambda rows, run: answer_of(plan([step("TAP", rows[0])]), run, transcript(run)),
    ),
    "fence blanks": (
        big_screen,
        lambda rows, run: ("```json\n" + "\n" * 2_000 + f"x{run}", transcript(run)),
    ),
    "fence blanks 256K": (
        big_screen,
        lambda rows, run: ("```json\n" + "\n" * (ANSWER_BYTES - 16) + f"x{run}", transcript(run)),
    ),
    "many fences": (
        big_screen,
        lambda rows, run: ("```\n" * (ANSWER_BYTES // 4 - 4) + f"x{run}", transcript(run)),
    ),
    "fenced padded": (
        big_screen,
        lambda rows, run: (padded(plan([step("TAP", rows[0])])), transcript(run)),
    ),
    "named, wordy": (
        wordy_screen,
        lambda rows, run: answer_of(plan([step("TAP", rows[0])]), run, transcript(run)),
    ),
    "named, word": (
        word_screen,
        lambda rows, run: answer_of(
            plan([step("TAP", rows[0])]), run, f"m{run}" + "z" * (TRANSCRIPT_CHARS - 8)
        ),
    ),
    "named, Ge'ez": (
        geez_screen,
        lambda rows, run: answer_of(plan([step("TAP", rows[0])]), run, geez_transcript(run)),
    ),
    "id flood": (
        id_flood_screen,
        lambda rows, run: answer_of(plan([step("TAP", row) for row in rows]), run),
    ),
}


# A planner's error answer as large as an answer may be: what reading it for the log costs with
# a vocabulary of `TERMS` terms to withhold and the 64 KB screen and the transcript as sent.
TERMS = 500
ERROR_BODIES: dict[str, Callable[[int], bytes]] = {
    "error word": lambda run: (
        b'{"error": {"message": "k%d' % run + b"q" * (ANSWER_BYTES - 64) + b'"}}'
    ),
    "error blanks": lambda run: (
        b'{"error": {"message": "x%d' % run + b"\\n" * ((ANSWER_BYTES - 64) // 2) + b'"}}'
    ),
    "error escapes": lambda run: (
        b'{"error": {"message": "%d' % run
        + b"\\u12a0%41&#x12A0;" * ((ANSWER_BYTES - 64) // 18)
        + b'"}}'
    ),
    "error words": lambda run: orjson.dumps(
        {"error": {"message": transcript(run) * (ANSWER_BYTES // 1_200), "param": "x" * 4000}}
    ),
    "error text": lambda run: (b"sk-%d" % run) + b"A1" * ((ANSWER_BYTES - 16) // 2),
}


def timed_error(body: Callable[[int], bytes], repeat: int) -> tuple[float, str]:
    """Median CPU milliseconds of reading one error answer for the log, cold, and its kind."""
    cpu, kind = [], ""
    for run in range(repeat):
        summary, _ = big_screen(run)
        sent = Sent(
            terms=[f"term{run}x{index}" for index in range(TERMS)],
            texts=[summary, transcript(run)],
        )
        content = body(run)
        start = time.process_time()
        found = status_error("plan", Answer(500, {}, content), "sk-secret-key-0123456789", sent)
        cpu.append(time.process_time() - start)
        kind = "none" if found is None else str(found[1]["kind"])
    return statistics.median(cpu) * 1000, kind


def rows_screen(salt: int = 0) -> tuple[str, list[str]]:
    """A search field, a message field and a "Send" button, then a list of rows each with its
    own "Delete" button and a label: every rule has its work to do (a row's delete control, the
    one search field, the message field and its send button)."""
    return _fill(
        [
            "[root] FrameLayout",
            '  [search] EditText "Search items" {editable}',
            '  [message] EditText "Message" {editable}',
            '  [send] Button "Send" {clickable}',
            "  [list] RecyclerView {scrollable}",
        ],
        lambda index: (
            f"    [r{index}] LinearLayout",
            f'      [d{index}] Button "Delete" {{clickable}}',
            f'      [t{index}] TextView "Item {index} {salt}"',
        ),
    )


def near(word: str) -> str:
    """`word` a letter off: its middle letter changed, so it looks like it and is not it."""
    middle = len(word) // 2
    return word[:middle] + ("x" if word[middle : middle + 1] != "x" else "y") + word[middle + 1 :]


def shown_words(summary: str) -> list[str]:
    """The words of the screen's last labelled node (its last row), as the screen shows them."""
    tree = ViewTree(summary)
    shown = [text for node in tree.values() if (text := label(node))]
    return (shown[-1] if shown else "chat").replace(",", " ").split()


def words_of(summary: str, count: int) -> str:
    """`count` words a letter off the screen's last label's, its words in turn, each cut so
    that the transcript stays within the 1,000 characters the service plans."""
    found = shown_words(summary)
    longest = TRANSCRIPT_CHARS // count - 8
    return " ".join(near(found[index % len(found)][:longest]) for index in range(count))


def shown(summary: str) -> str:
    """The screen's last label, cut to the 1,000 characters the service plans."""
    return " ".join(shown_words(summary))[: TRANSCRIPT_CHARS - 16]


Said = Callable[[str], tuple[str, Locale]]  # the screen's summary: the transcript, its language
SAYINGS: dict[str, Said] = {
    "tap near": lambda summary: (f"tap {words_of(summary, 2)}", Locale.EN_US),
    "tap 12 words": lambda summary: (
        f"tap {words_of(summary, RULES_MAX_WORDS - 1)}",
        Locale.EN_US,
    ),
    "search": lambda summary: (f"search for {words_of(summary, 3)}", Locale.EN_US),
    "type+send": lambda summary: (f"type {words_of(summary, 3)} and send", Locale.EN_US),
    "delete": lambda summary: (f"delete {shown(summary)}", Locale.EN_US),
    "delete from": lambda summary: (
        f"delete the {' '.join(shown(summary).split()[:6])} from my {words_of(summary, 1)}",
        Locale.EN_US,
    ),
    "nothing": lambda summary: ("tap zqvw jjkx fffq", Locale.EN_US),
    "bare words": lambda summary: (words_of(summary, RULES_MAX_WORDS), Locale.EN_US),
    "turn on": lambda summary: (
        f"turn on {words_of(summary, RULES_MAX_WORDS - 2)}",
        Locale.EN_US,
    ),
}
# English labels said as they sound, in Ge'ez letters, on any screen: the screen's labels are
# Latin, so no Ge'ez word names one in letters and each is compared by sound (`sounds`); the
# last word carries the object marker, so two forms are looked for.
SOUNDED = "ሜሴጅ ፕሪቪው ኩዋይት ሎንግ ቱ ሪድ ቻት ፋይቭ ሀንድሬድ ሴቨን ዋኖችን"
SOUNDED_SAYINGS: dict[str, Said] = {
    "Amharic by sound": lambda summary: (f"{SOUNDED} ንካ", Locale.AM_ET),
    "Amharic turn on": lambda summary: (f"{SOUNDED} አብራ", Locale.AM_ET),
}
AMHARIC_SAYINGS: dict[str, Said] = {
    "Amharic tap": lambda summary: (f"{words_of(summary, 3)} ንካ", Locale.AM_ET),
    "Amharic delete": lambda summary: (f"{shown(summary)} ሰርዝ", Locale.AM_ET),
}
RULES_SCREENS: list[Screen] = [
    big_screen,
    icon_screen,
    bare_screen,
    deep_screen,
    deep_ok_screen,
    wordy_screen,
    word_screen,
    geez_screen,
    id_flood_screen,
    rows_screen,
]


def timed_rules(screen: Screen, said: Said, repeat: int) -> tuple[float, float, str]:
    """Median CPU and wall milliseconds of the rules' plan (cold, as `timed`), and the plan."""
    cpu, wall, outcome = [], [], ""
    for run in range(repeat):
        summary, _ = screen(run)
        transcript, language = said(summary)
        phone = PhoneScreen(APP, summary, granted=True)
        cpu_start, wall_start = time.process_time(), time.perf_counter()
        planned = rules_plan(transcript, phone, language, [APP])
        cpu.append(time.process_time() - cpu_start)
        wall.append(time.perf_counter() - wall_start)
        outcome = "model asked" if planned is None else _steps(planned)
    return statistics.median(cpu) * 1000, statistics.median(wall) * 1000, outcome


def _steps(planned: dict[str, Any]) -> str:
    steps = " ".join(f"{s['action_type']} {s['target_node_id'] or ''}".strip()
                     for s in planned["steps"])  # fmt: skip
    return f"{steps}{', asked' if planned['needs_confirmation'] else ''}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--skip", nargs="*", default=[], help="cases not to run", metavar="NAME")
    parser.add_argument("--rules-only", action="store_true", help="only the rules planner's cases")
    args = parser.parse_args()
    print(f"median of {args.repeat} runs, each on a fresh screen under {SCREEN_BYTES} bytes")
    for name, (screen, case) in ({} if args.rules_only else CASES).items():
        if name in args.skip:
            print(f"  {name:<17} skipped")
            continue
        summary, _ = screen(0)
        cpu_ms, wall_ms, outcome = timed(screen, case, args.repeat)
        shape = f"{screen.__name__} ({summary.count(chr(10)) + 1} lines)"
        print(f"  {name:<17} {shape:<28} CPU {cpu_ms:7.1f} ms  wall {wall_ms:7.1f} ms  {outcome}")
    for name, body in ({} if args.rules_only else ERROR_BODIES).items():
        if name in args.skip:
            print(f"  {name:<17} skipped")
            continue
        cpu_ms, kind = timed_error(body, args.repeat)
        shape = f"{len(body(0)) // 1024} KiB error answer"
        print(f"  {name:<17} {shape:<28} CPU {cpu_ms:7.1f} ms  {'':18}  logged ({kind})")
    print("the rules planner under local first (commands.rules_first.rules_plan)")
    for screen in RULES_SCREENS:
        sayings = {**SAYINGS, **SOUNDED_SAYINGS,
                   **(AMHARIC_SAYINGS if screen is geez_screen else {})}  # fmt: skip
        for name, said in sayings.items():
            named = f"rules {screen.__name__.removesuffix('_screen')} {name}"
            if named in args.skip:
                print(f"  {named:<32} skipped")
                continue
            cpu_ms, wall_ms, outcome = timed_rules(screen, said, args.repeat)
            print(f"  {named:<32} CPU {cpu_ms:7.1f} ms  wall {wall_ms:7.1f} ms  {outcome}")


def plan(steps: list[dict[str, Any]]) -> dict[str, Any]:
    return {"package_name": APP, "steps": steps}


if __name__ == "__main__":
    main()
