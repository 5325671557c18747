"""Runnable examples: chatbots to try each adapter with, and their configs."""
