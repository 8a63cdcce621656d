"""What every part of ``trainers`` shares, below all of them: the one RAFS config loader (:mod:`.config`), the one
input reader (:mod:`.readers`), the user-facing error (:mod:`.errors`) and the optional extras a command needs
(:mod:`.extras`). Nothing here imports torch, TRL or the CLI."""
