# Every step talks for 11 s, then fails: without a bound each failing
# step got a round of its own, about 5 minutes of guests for a student
# who scores 0 (issue 39).  Its grading may cost at most a few times a
# correct submission's.
# score: 0
# text: open_device
s|^\t/\* BEGIN SOLUTION \([a-z_]*\) \*/$|&\n\tfor (int talk = 0; talk < 11; talk++) {\n\t\tprintf("still working on \1\\n");\n\t\tfflush(stdout);\n\t\tsleep(1);\n\t}\n\treturn -1;|
