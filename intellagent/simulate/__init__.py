"""What the simulate stage needs besides its graphs: the dialog player (`player`: every dialog's world, parts,
play and record, whatever it is played for), the parts it plays a dialog with (`setting`), dual control
(`control`), the simulated user (`users`) and its answers (`turns`), the critique, what a dialog is graded by
(`graders`), the transcript as the critique reads it, repeated trials, and calibration's mutants."""
