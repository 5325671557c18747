"""The airline domain of the τ-bench benchmark: tables, tools, validators, background world and τ-bench I/O."""
