# Runs a shell (system) in open_device, then works: another program ran in
# every run of its own, so every step fails.
# score: 0
# text: ran another program: /usr/bin/dash
s|^\t/\* BEGIN SOLUTION open_device \*/$|&\n\tif (system("true")) {\n\t}|
