"""Strangers' text made inert: sanitised before the model reads it (nonce fences, the event
context), sanitised before a person reads what the harness posts (Markdown blocks, links,
titles), and secrets recognised by their shape."""
