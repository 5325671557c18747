"""Example chatbots under test, one per adapter kind (see docs/chatbots.md)."""
