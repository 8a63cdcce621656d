"""Training with rafs: recipes and ``rafs train`` (:mod:`.recipes`, :mod:`.train`, :mod:`.train_data`), reward
functions by name (:mod:`.reward_names`, :mod:`.reward_choice`), the checkpoint validity screen
(:mod:`.callbacks`, :mod:`.probes`), the embedded default model (:mod:`.models`) and the demo (:mod:`.demo`).
Importing this package imports nothing heavy; its modules import TRL and torch where they need them."""
