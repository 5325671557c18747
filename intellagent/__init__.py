"""IntellAgent: stress-test a conversational agent against its own policy before it meets real users."""
