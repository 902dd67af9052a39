"""The rdma-lab grader, in the order of its pipeline (stdlib only; run by
grader/grader.py, the command line, with /usr/bin/python3, never
installed):

  submissions, unpack  a submission is hostile input: its main.c, read
                       within bounds
  evidence/            what happened: wire (the capture, ICRC), kernel
                       (the guest kernel's trace), peer (the programs'
                       lines, the guests' facts)
  judges/              one module per step of lab/steps.h
  student              one student: every pairing, both sides, result.json
  reports              the student's text, Gradescope, report.csv/.md
  course               a whole course: shards merged, progress
  provenance           which grader graded which source when; regrades
  lms                  the LMS's download layouts in, lms.csv out
  classstats, coursereport, similarity
                       statistics over real submissions, report.html,
                       similar pairs (sim_c)
  lab, verbs, hints    the lab's facts (lab/steps.h, lab/lab.h), verbs and
                       BTH constants, the hint texts
  text                 small parsers; text a student controls, made safe
"""
