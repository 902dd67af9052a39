# Tries to kill its parent, then works: no harm, full marks.
# score: 20
# text: Score: 20/20
s|^\t/\* BEGIN SOLUTION open_device \*/$|&\n\tkill(getppid(), SIGKILL);|
