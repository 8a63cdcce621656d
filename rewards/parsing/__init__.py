"""Parsing: a completion (text, chat messages, ``<think>`` blocks, pre-split steps) becomes a
:class:`~rewards.parsing.trace.Trace` of steps and a final answer. The lowest layer: it imports nothing else of rafs.
"""
