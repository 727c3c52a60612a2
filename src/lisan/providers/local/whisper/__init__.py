"""Whisper tiny.en as a closed-set scorer: the offline provider's second ear. Its weights ship in
a registry package (`weights`); the service computes with them in numpy (`features`, `model`)
and scores the commands a screen allows (`scorer`), never decoding freely."""
