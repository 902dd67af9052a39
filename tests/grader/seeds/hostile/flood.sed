# Prints without end in open_device.
# score: 18
# text: open_device
s|^\t/\* BEGIN SOLUTION open_device \*/$|&\n\tfor (;;)\n\t\tputs("spam spam spam spam spam spam spam spam spam spam");|
