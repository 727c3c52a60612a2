"""The plan rules: what a planner's plan must be before it reaches the phone, whatever planner
made it. `rules` checks a raw plan against the screen the phone sent and the user's grants;
`words` and `consequence` read what a step's target says it will do; `question` composes the
spoken question before a consequential step runs.

Beside `screen` and below `commands`: it imports only `lisan.screen` and `lisan.core`, so the
command pipeline and the offline planner can both use it."""
