#!/bin/bash
# Gradescope's setup.sh: runs once, as root, when Gradescope builds the
# autograder's image (Ubuntu 22.04 by default; tried here on Debian 12).
# Unpacks the lab (rdma-lab.tar.gz, beside this file) in /autograder/rdma-lab,
# installs its packages, fills the guest cache (with the guests'
# snapshots) and builds the reference and the grader's tools, so that
# run_autograder needs no network.
[ "${1:-}" != --help ] || exec sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"
set -eu
src=$(cd "$(dirname "$0")" && pwd)
dest=/autograder/rdma-lab
# One cache for setup and every run, whatever HOME is.
export XDG_CACHE_HOME=/autograder/cache DEBIAN_FRONTEND=noninteractive
rm -rf "$dest"
mkdir -p "$dest" "$XDG_CACHE_HOME"
tar -xzf "$src/rdma-lab.tar.gz" -C "$dest"
cd "$dest"
vm/deps
vm/prepare >/dev/null
vm/deps --check
make -s all grader-tools
# The guests' warm-start snapshots (vm/snapshot), made once here rather
# than in every grading's fresh container.
vm/run --server true --client true >/dev/null
echo "setup.sh: the lab is ready in $dest"
