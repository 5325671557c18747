"""Example chatbots under test, one per adapter kind (see the README's "Testing your own chatbot")."""
