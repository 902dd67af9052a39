# Forks without end in open_device: the cgroup of its run refuses its
# RUN_PROCS-th process (grader/settings.sh; the jail's own counted), the
# guest stops it when it has been silent too long, and the hint names
# what it exhausted.
# score: 18
# text: exhausted its processes \(${RUN_PROCS}, the jail.s own included: a fork failed\) in step open_device
s|^\t/\* BEGIN SOLUTION open_device \*/$|&\n\tfor (;;)\n\t\tfork();|
