"""The LLM layer: model SPECs, the embedded local model, the cache, accounting and structured answers."""
