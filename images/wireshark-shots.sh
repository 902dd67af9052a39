#!/bin/bash
# How images/wireshark-send-imm.png and images/wireshark-write.png were
# taken: Wireshark's GUI under Xvfb on docs/runs/demo.pcap. A one-off, not
# part of `make images` or the tests (the GUI is a big install and its
# rendering changes between versions).
# Needs: apt-get install wireshark-qt xvfb xdotool imagemagick
[ "${1:-}" != --help ] || exec sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"
set -eu
cd "$(dirname "$0")/.."
export DISPLAY=:77
Xvfb "$DISPLAY" -screen 0 1400x1050x24 -nolisten tcp &
xvfb=$!
sleep 2
wireshark -r docs/runs/demo.pcap -Y infiniband -g 22 &
ws=$!
sleep 12
win=$(xdotool search --onlyvisible --name demo.pcap | head -n 1)
xdotool windowmove "$win" 0 0 windowsize "$win" 1400 1050
sleep 3
# Expand the InfiniBand tree of the selected packet (the 5th details row).
xdotool mousemove 70 638 click 1
xdotool key shift+Right
sleep 2
import -window root images/wireshark-send-imm.png
# The RDMA WRITE ONLY packet: the 5th row of the filtered packet list.
xdotool mousemove 300 188 click 1
sleep 2
xdotool mousemove 70 638 click 1
xdotool key shift+Right
sleep 2
import -window root images/wireshark-write.png
kill "$ws" "$xvfb"
