"""Problem-kind rules."""
