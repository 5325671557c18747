"""Example domains: SQLModel tables, the chatbot's tools and validators, one package per domain."""
