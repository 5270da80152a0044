"""Apply a prediction, run the hidden tests in the sandbox, grade from structured results and exit code."""
