# Fake hosts for the two scripts that depend on the host's package system:
# vm/prepare --kernel-source (where the guests' kernel comes from) and
# vm/deps --check (what to install, on apt, dnf, pacman and zypper hosts).
# Each host is a PATH without the real package tools (and without tshark,
# so that one package is missing), stub tools in front and a cache folder
# of its own. Nothing here reads the real apt lists or installs anything.
# Sourced by tests/unit.sh (ok, fail, t_tmp, path_without).
# shellcheck shell=bash disable=SC2154 # t_tmp: tests/lib.sh

hosts=$t_tmp/hosts
calls=$hosts/calls
mkdir -p "$hosts"
: >"$calls"
host_path=$(path_without apt-get apt-cache apt dpkg dpkg-deb dnf pacman \
	zypper tshark)

# host NAME TOOL...: a fake host with these stub tools. apt-cache answers
# from NAME/apt-known ("PACKAGE DEPENDENCY..." lines); every other tool
# logs its call and fails: nothing may run it.
host() {
	local dir=$hosts/$1 tool
	shift
	mkdir -p "$dir/bin" "$dir/cache"
	: >"$dir/apt-known"
	for tool in "$@"; do
		if [ "$tool" = apt-cache ]; then
			cat >"$dir/bin/apt-cache" <<'SH'
#!/bin/bash
# apt-cache of a fake host: knows only the packages of apt-known.
echo "apt-cache $*" >>"$FAKE_CALLS"
cmd=$1
shift
[ "${1:-}" != --no-all-versions ] || shift
for pkg in "$@"; do
	line=$(grep -m 1 -E "^$pkg( |\$)" "$(dirname "$0")/../apt-known") || {
		echo "E: No packages found" >&2
		exit 100
	}
	case "$cmd" in
	depends)
		echo "$pkg"
		for dep in ${line#"$pkg"}; do
			echo "  Depends: $dep"
		done
		;;
	show) printf 'Package: %s\nSize: 2097152\n\n' "$pkg" ;;
	*)
		echo "fake apt-cache: '$cmd' is not faked" >&2
		exit 2
		;;
	esac
done
SH
		else
			cat >"$dir/bin/$tool" <<'SH'
#!/bin/sh
echo "${0##*/} $*" >>"$FAKE_CALLS"
echo "fake host: ${0##*/} must not run here" >&2
exit 99
SH
		fi
		chmod +x "$dir/bin/$tool"
	done
}

# on NAME CMD...: runs CMD on the fake host NAME; stdout in $hosts/out,
# stderr in $hosts/err, status in $rc.
on() {
	local dir=$hosts/$1
	shift
	rc=0
	env -u LAB_KERNEL_DEB -u LAB_KERNEL_PKG PATH="$dir/bin:$host_path" \
		XDG_CACHE_HOME="$dir/cache" FAKE_CALLS="$calls" "$@" \
		>"$hosts/out" 2>"$hosts/err" || rc=$?
}

# expect NAME STATUS STDOUT [STDERR-REGEX [NOT-REGEX]]: the last run's
# status, its whole stdout, and its stderr (one line when a regex is given).
expect() {
	local name=$1 want_rc=$2 want_out=$3 want_err=${4:-} not_err=${5:-}
	local why=''
	[ "$rc" = "$want_rc" ] || why="status $rc, want $want_rc;"
	[ "$(cat "$hosts/out")" = "$want_out" ] ||
		why="$why stdout '$(head -c 200 "$hosts/out")', want '$want_out';"
	if [ -n "$want_err" ]; then
		grep -Eq -- "$want_err" "$hosts/err" ||
			why="$why stderr lacks /$want_err/;"
		[ -z "$not_err" ] || ! grep -Eq -- "$not_err" "$hosts/err" ||
			why="$why stderr has /$not_err/;"
	fi
	if [ -z "$why" ]; then
		ok "$name"
	else
		echo "$why" >"$hosts/why"
		cat "$hosts/err" >>"$hosts/why"
		fail "$name" "$hosts/why"
	fi
}

# warm NAME: the fake host's cache holds a kernel.
warm() {
	mkdir -p "$hosts/$1/cache/rdma-lab/kernel-6.1.0-99-amd64"
	: >"$hosts/$1/cache/rdma-lab/kernel-6.1.0-99-amd64/vmlinuz"
}

host debian apt-cache apt-get
printf '%s\n' 'linux-image-amd64 linux-image-6.1.0-99-amd64' \
	'linux-image-6.1.0-99-amd64' >"$hosts/debian/apt-known"
host ubuntu apt-cache apt-get
u=6.8.0-31-generic
printf '%s\n' \
	"linux-image-generic linux-firmware linux-image-$u linux-modules-extra-$u" \
	"linux-image-$u linux-modules-$u" "linux-modules-$u" \
	"linux-modules-extra-$u wireless-regdb" "linux-firmware" \
	>"$hosts/ubuntu/apt-known"
host nolists apt-cache apt-get
host fedora dnf
host arch pacman
host suse zypper
host fedora-cold dnf
host bare

# --- the kernel's source: vm/prepare --kernel-source ------------------------
on debian vm/prepare --kernel-source
expect "kernel source, Debian host: linux-image-amd64's image package" \
	0 "apt linux-image-6.1.0-99-amd64"
on ubuntu vm/prepare --kernel-source
expect "kernel source, Ubuntu host: linux-image-generic's image, modules and modules-extra" \
	0 "apt linux-image-$u linux-modules-$u linux-modules-extra-$u"
on nolists vm/prepare --kernel-source
expect "kernel source, apt without lists: one line, apt-get update or LAB_KERNEL_DEB" \
	1 "" "^vm/prepare: no kernel .*apt-get update.*LAB_KERNEL_DEB"
[ "$(grep -c . "$hosts/err")" = 1 ] || fail "  ...in one line" "$hosts/err"
on fedora vm/prepare --kernel-source
expect "kernel source, no apt: one line naming LAB_KERNEL_DEB, not apt-get" \
	1 "" "^vm/prepare: .*no apt.*LAB_KERNEL_DEB" "apt-get update"
[ "$(grep -c . "$hosts/err")" = 1 ] || fail "  ...in one line" "$hosts/err"
: >"$hosts/a.deb"
: >"$hosts/b.deb"
on nolists env LAB_KERNEL_DEB="$hosts/a.deb $hosts/b.deb" \
	vm/prepare --kernel-source
expect "kernel source, LAB_KERNEL_DEB: the named .deb files, apt not asked" \
	0 "deb $hosts/a.deb $hosts/b.deb"
on debian env LAB_KERNEL_DEB="$hosts/none.deb" vm/prepare --kernel-source
expect "kernel source, LAB_KERNEL_DEB naming no file: one line naming it" \
	1 "" "^vm/prepare: LAB_KERNEL_DEB names $hosts/none.deb,"
warm nolists
before=$(wc -l <"$calls")
on nolists vm/prepare --kernel-source
expect "kernel source, a cached kernel: the cache, apt not asked" \
	0 "cached $hosts/nolists/cache/rdma-lab/kernel-6.1.0-99-amd64"
if [ "$(wc -l <"$calls")" != "$before" ]; then
	fail "  ...but a package tool ran" "$calls"
fi
on bare vm/prepare --bogus
expect "vm/prepare: a bad option, one line and status 2" 2 "" "^vm/prepare: usage"

# --- what to install: vm/deps --check (never installs) ---------------------
# Each host lacks tshark, and nothing else that this machine has.
warm debian
on debian vm/deps --check
expect "vm/deps, Debian host: the apt-get line for what is missing" \
	1 "" "apt-get install -y --no-install-recommends tshark$"
host debian-offline
warm debian-offline
ln -s "$(command -v tshark)" "$hosts/debian-offline/bin/tshark"
before=$(wc -l <"$calls")
on debian-offline vm/deps --check
expect "vm/deps, nothing missing, kernel cached, no apt at all: passes" 0 ""
if [ "$(wc -l <"$calls")" != "$before" ]; then
	fail "  ...but a package tool ran" "$calls"
fi
for pm in fedora:dnf:"dnf install -y wireshark-cli" \
	arch:pacman:"pacman -S --needed wireshark-cli" \
	suse:zypper:"zypper install wireshark"; do
	name=${pm%%:*}
	line=${pm#*:*:}
	warm "$name"
	on "$name" vm/deps --check
	expect "vm/deps, $name host: '$line', no apt-get line" \
		1 "" "run as root: $line$" "apt-get"
done
on fedora-cold vm/deps --check
expect "vm/deps, dnf host, no kernel: LAB_KERNEL_DEB, and dpkg to unpack it" \
	1 "" "LAB_KERNEL_DEB" "apt-get"
grep -q "dnf install -y .*dpkg" "$hosts/err" ||
	fail "  ...without dpkg in the dnf line" "$hosts/err"
warm bare
on bare vm/deps --check
expect "vm/deps, no package manager: the Debian names, install by hand" \
	1 "" "tshark; no apt, dnf, pacman or zypper here"
on bare vm/deps --bogus
expect "vm/deps: a bad option, status 2" 2 "" "^usage: vm/deps"

# No fake host ran a package tool other than apt-cache's look-ups.
if grep -v '^apt-cache ' "$calls" >"$hosts/ran"; then
	fail "fake hosts: a package tool ran (apt-get, dpkg-deb, dnf, ...)" \
		"$hosts/ran"
else
	ok "fake hosts: no package tool ran but apt-cache's look-ups"
fi

# Every package vm/deps may name has a row in its table of other systems'
# names, and the table has no row for a package it never names.
table=$(sed -n '/^other_names="/,/^"$/p' vm/deps | awk 'NF == 4 { print $1 }' |
	sort -u)
named=$({
	vm/deps --list | awk '{ print $2 }'
	grep '/usr/' vm/deps | grep -oE ':[a-z0-9.+-]+"?$' | tr -d ':"'
} | sort -u)
if [ -n "$named" ] && [ "$table" = "$named" ]; then
	ok "vm/deps: its table names each of its $(echo "$named" | wc -l)" \
		"packages on Fedora, Arch and openSUSE"
else
	diff <(echo "$table") <(echo "$named") >"$hosts/table.diff"
	fail "vm/deps: its other-systems table and its packages differ" \
		"$hosts/table.diff"
fi
