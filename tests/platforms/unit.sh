# shellcheck shell=bash disable=SC2154 # set by tests/unit.sh
# The unit group's checks of ./lab.sh and the platforms' pieces that need no
# container. Sourced by tests/unit.sh, whose helpers (ok, ko, section, BIN,
# ccw, programs, tools) they use; each section is a named check.

# ---- ./lab.sh without a real engine: its choices and its own bound ----
# A fake engine first on PATH whose run never returns: LAB_MAX_SECONDS
# stops the action, removes the named container, and leaves no process
# (no timeout(1) in it: stock macOS has none).
u_lab_sh() {
	fake=$BIN/fake-engine
	mkdir -p "$fake"
	cat >"$fake/fakectr" <<'EOF'
#!/bin/sh
echo "$*" >>"${0%/*}/calls"
case "$1" in
version | image) exit 0 ;;
run) exec sleep 97 ;;
esac
EOF
	chmod 755 "$fake/fakectr"
	rm -f "$fake/calls"
	rc=0
	start=$SECONDS
	PATH=$fake:$PATH LAB_ENGINE=fakectr LAB_WHERE=container LAB_MAX_SECONDS=2 \
	./lab.sh demo >"$fake/out" 2>&1 || rc=$?
	took=$((SECONDS - start))
	sleep 1
	if [ "$rc" != 0 ] && [ "$took" -le 6 ] &&
	grep -q '^rm -f rdma-lab-' "$fake/calls" &&
	grep -q 'stopped after 2 s' "$fake/out" &&
	! pgrep -f "^sleep 97$" >/dev/null; then
	ok "./lab.sh: LAB_MAX_SECONDS=2 stops a hung engine in $took s, container removed"
	else
	ko lab_sh_bound "status $rc after $took s: $(tr '\n' ' ' <"$fake/out" | cut -c 1-200)"
	fi
	rc=0
	LAB_WHERE=nowhere ./lab.sh where >"$fake/out" 2>&1 || rc=$?
	if [ "$rc" = 2 ] && grep -q 'LAB_WHERE must be host or container' "$fake/out"; then
	ok "./lab.sh: a bad LAB_WHERE, status 2"
	else
	ko lab_sh_where "status $rc: $(head -n 1 "$fake/out")"
	fi
}
section lab_sh u_lab_sh

u_platforms_unit() {
	# shellcheck source=tests/platforms/platforms_unit.sh
	. tests/platforms/platforms_unit.sh
}
section platforms_unit u_platforms_unit
