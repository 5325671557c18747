"""τ-bench mode: its published tasks as scenarios, its data as the events' world, its reward as the grade.

`tasks` reads and selects a task set; `task_scenarios` is the run's scenario source in this mode (each task a
scenario, every event on the task set's database); `user` is the simulated user that plays by τ-bench's
conventions; `task_grading` grades a dialog exactly as τ-bench does, naming what a failed one missed; `score`
is τ-bench's pass^k over the run. `intellagent.modes` is where a run or an event takes this mode's parts.
What a domain provides to play the tasks is the environment's (`environment.TauDomain`).
"""
