"""The action vocabulary of a plan (the contract's ActionType), shared by the planners that write
plans and the rules that check them."""

from __future__ import annotations

ACTION_TYPES = frozenset({"TAP", "SCROLL", "TEXT_INPUT", "BACK", "HOME", "OPEN_APP"})
# A SCROLL step's payload: its direction (absent means down).
SCROLL_DIRECTIONS = frozenset({"up", "down", "left", "right"})
