"""τ-bench mode: its published tasks as scenarios, its data as the events' world, its reward as the grade.

`tasks` reads and selects a task set, `domain` says what a domain's τ-bench module provides, and
`grading` scores a dialog exactly as τ-bench does, naming what a failed one missed.
"""
