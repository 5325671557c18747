"""What the simulate stage needs besides its graphs: each dialog's setting (`setting`: its world, its
parts, what is recorded once it ended), the simulated user (`users`) and its answers (`turns`), the
critique, what a dialog is graded by (`grading`), the transcript as the critique reads it, repeated
trials, and calibration's mutants."""
