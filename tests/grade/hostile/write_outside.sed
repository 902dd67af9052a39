# Writes outside its folder, then works: nothing lands, full marks.
# score: 20
# text: Score: 20/20
s|^\t/\* BEGIN SOLUTION open_device \*/$|&\n\tif (system("echo pwned > /lab-out/pwned; echo pwned > /tmp/rdma-lab-pwned")) {\n\t}|
