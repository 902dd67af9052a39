# Spins forever in open_device.
# score: 18
# text: timed out in step open_device
s|^\t/\* BEGIN SOLUTION open_device \*/$|&\n\tfor (volatile int spin = 1; spin;)\n\t\t;|
