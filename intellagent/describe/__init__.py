"""The describe stage's logic: policies from a document, the policy graph, sampling, scenarios."""
