"""Controlled training experiments on CPU: tiny program-generated worlds and tiny Llama policies trained from scratch.

* :mod:`trainers.experiments.world` — the shared tiny world (arithmetic word problems with hints, behaviour
  renderers and mixtures, tokenizer, tiny ``LlamaForCausalLM``, SFT, generation, the teacher-forced causal test);
* :mod:`trainers.experiments.faithfulness` — does GRPO with the RAFS rewards make reasoning more faithful
  (``rafs experiment faithfulness``);
* :mod:`trainers.experiments.collapse` — does the checkpoint validity screen catch a confidence collapse
  (``rafs experiment collapse``).
"""
