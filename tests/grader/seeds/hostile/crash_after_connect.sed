# Connects correctly, then dies of SIGSEGV at the start of send: a crash
# is graded the same every time (issue 39: six copies got 18/20 four
# times and 15/20 twice).  send loses its points, and the rounds judge
# the steps after it on the student's own code.
# score: 18
# text: send
# lost: send
s|^\t/\* BEGIN SOLUTION send \*/$|&\n\t*(volatile int *)0 = 0;|
