# Runs a shell (system("true")) in open_device, then works.  The jail
# lets only its own exec of the program through: the shell never runs
# (system() returns 127), so no other program ran and the work earns full
# marks.  Had it run, the tracer's start line of the shell would have
# failed every step ("ran another program").
# score: 20
# text: Score: 20/20
s|^\t/\* BEGIN SOLUTION open_device \*/$|&\n\tif (system("true")) {\n\t}|
