"""What the simulate stage needs besides its graphs: the user's and critique's answers, the transcript
as the critique reads it, and each dialog's own accounting."""
