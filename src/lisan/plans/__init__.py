"""The plan rules: what a planner's plan must be before it reaches the phone, whatever planner
made it. `rules` checks a raw plan against the screen the phone sent and the user's grants;
`words` (with `amharic`, its Amharic grammar) and `evidence` read what screen text says, and
`consequence` what a step's target says it will do; `question` composes the spoken question
before a consequential step runs (`amounts` reads the money it names, `acts` the acts it says
in its own words).

Beside `screen` and below `commands`: it imports only `lisan.screen` and `lisan.core`, so the
command pipeline and the offline planner can both use it."""
