#!/bin/sh
# ./lab.sh: the lab's commands, one per action, the same on every host
# (Linux, macOS, Windows with WSL2 or Docker Desktop, a devcontainer).
#   ./lab.sh demo              the reference program end to end (make demo)
#   ./lab.sh run [ARGS=...] [LOSS=...]   your lab/main.c end to end (make
#                              run; LOSS: the wire drops packets, vm/wire/relay)
#   ./lab.sh grade [GRADE_ARGS=...]   your lab graded (make grade)
#   ./lab.sh ladder            your capture as a chart (make ladder)
#   ./lab.sh shell             two guest consoles (vm/run --shell)
#   ./lab.sh make [TARGET...]  any make target (make alone: the build)
#   ./lab.sh exec CMD...       any command in the lab's tree
#   ./lab.sh image             builds the container image (once)
#   ./lab.sh where             says where the commands run, and why
# Where the host has the lab's packages (a Linux host where vm/deps
# --check passes), each action runs here, as make would.  Elsewhere it
# runs in the lab's container (docker or podman, whichever is
# installed), with your lab/ mounted over the image's and out/ copied
# back, so that captures (out/run/wire.pcap), grade logs (out/grade/) and
# ladder pictures land on your disk.  The image is built on first use
# when it is missing (./lab.sh image: 3 to 15 minutes, once), or pulled
# when LAB_IMAGE names a registry's (a name with a slash).
# Settings (environment): LAB_WHERE=host|container forces one;
# LAB_IMAGE=NAME the image (default rdma-lab); LAB_ENGINE=docker|podman
# the engine; LAB_KVM=1 passes /dev/kvm to the container (a Linux host
# whose KVM works); LAB_MAX_SECONDS the bound on one action (3600).
# POSIX sh with no tool beyond the engine: stock macOS has no timeout(1),
# so the waits are bounded here.
[ "${1:-}" != --help ] || exec sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"
set -eu

cd "$(dirname "$0")"
prog=./lab.sh
image=${LAB_IMAGE:-rdma-lab}
max=${LAB_MAX_SECONDS:-3600}
os=$(uname -s)
say() { echo "$prog: $*" >&2; }
usage() {
	sed -n '2,12s/^# //p' "$0" >&2
	exit 2
}

# kill_tree PID: PID and every process below it (ps -A -o pid,ppid is
# POSIX: macOS has it too).
kill_tree() {
	for k_child in $(ps -A -o pid= -o ppid= | awk -v p="$1" '$2 == p { print $1 }'); do
		kill_tree "$k_child"
	done
	kill "$1" 2>/dev/null || true
}

# bounded SECS CMD...: CMD with its standard input from /dev/null, stopped
# (stop_hook first, then killed) when it runs longer than SECS seconds.
stop_hook=:
bounded() {
	b_secs=$1
	shift
	"$@" </dev/null &
	b_pid=$!
	(
		n=0
		while [ "$n" -lt "$b_secs" ]; do
			sleep 1
			kill -0 "$b_pid" 2>/dev/null || exit 0
			n=$((n + 1))
		done
		say "stopped after $b_secs s: ${1:-} ${2:-} ..."
		$stop_hook
		kill_tree "$b_pid"
	) &
	b_dog=$!
	b_rc=0
	wait "$b_pid" || b_rc=$?
	kill "$b_dog" 2>/dev/null || true
	wait "$b_dog" 2>/dev/null || true
	return "$b_rc"
}

# The container engine: LAB_ENGINE, else the first of docker and podman
# (podman first on Linux, as release/container and make image
# choose) that answers; a client whose daemon or VM is not running (a
# docker CLI without dockerd, Docker Desktop not started) does not.
engine=''
find_engine() {
	[ -z "$engine" ] || return 0
	if [ -n "${LAB_ENGINE:-}" ]; then
		engine=$LAB_ENGINE
		command -v "$engine" >/dev/null 2>&1
		return
	fi
	f_order='docker podman'
	[ "$os" != Linux ] || f_order='podman docker'
	f_found=''
	for f_e in $f_order; do
		command -v "$f_e" >/dev/null 2>&1 || continue
		[ -n "$f_found" ] || f_found=$f_e
		if bounded 60 "$f_e" version >/dev/null 2>&1; then
			engine=$f_e
			return 0
		fi
	done
	# None answers: the first found, whose errors then say why.
	engine=$f_found
	[ -n "$engine" ]
}
ctr() {
	if [ "$os" = Linux ] && command -v bash >/dev/null 2>&1; then
		LAB_ENGINE=$engine release/container "$@"
	else
		"$engine" "$@"
	fi
}

# where: sets place (host or container) and why.
place='' why=''
where() {
	case "${LAB_WHERE:-}" in
	host | container)
		place=$LAB_WHERE why="LAB_WHERE=$LAB_WHERE"
		return 0
		;;
	'') ;;
	*)
		say "LAB_WHERE must be host or container, not '$LAB_WHERE'"
		exit 2
		;;
	esac
	if [ "$os" = Linux ] && bounded 120 vm/deps --check >/dev/null 2>&1; then
		place=host
		why="this Linux host has the lab's packages (vm/deps --check)"
	elif find_engine; then
		place=container
		why="the lab's packages are not here ($os): $engine runs the image $image"
	elif [ "$os" = Linux ]; then
		place=host
		why="no container engine: make installs the packages (vm/deps)"
	else
		say "no docker or podman here: install Docker Desktop or Podman" \
			"Desktop (docs/rxe-setup.md, \"In a container\")"
		exit 1
	fi
}

# ensure_image: the image, built here when the engine has none.
ensure_image() {
	if bounded 120 ctr image inspect "$image" >/dev/null 2>&1; then
		return 0
	fi
	# A course's published image (a name with a registry's slash):
	# pulled, a few minutes; else built here.
	case "$image" in
	*/*)
		say "no image $image yet: pulling it (once)"
		bounded 1800 ctr pull "$image" && return 0
		say "could not pull $image: building it instead"
		;;
	esac
	say "no image $image yet: building it (3 to 15 minutes, once)"
	build_image
}
build_image() {
	if [ "$os" = Linux ] && command -v bash >/dev/null 2>&1 &&
		command -v make >/dev/null 2>&1; then
		# The base from Debian's packages where no registry answers.
		LAB_IMAGE=$image LAB_ENGINE=$engine release/image
	else
		bounded 5400 "$engine" build -t "$image" .
	fi
}

# in_container CMD...: CMD in the lab's tree in a container of the image:
# lab/ mounted over the image's, the host's out/ at /host/out: its run and
# demo folders are copied in before CMD (make ladder reads their
# captures), and the run, demo and grade folders back after it.  Copies,
# not mounts: vm/run makes named pipes in them, which a Mac's shared
# folders may refuse.
in_container() {
	find_engine || {
		say "no docker or podman here (${LAB_ENGINE:-docker, podman})"
		exit 1
	}
	ensure_image
	mkdir -p out
	name=rdma-lab-$$
	opts="--rm --name $name --network none"
	opts="$opts -v $PWD/lab:/opt/rdma-lab/lab -v $PWD/out:/host/out"
	[ "${LAB_KVM:-0}" != 1 ] || opts="$opts --device /dev/kvm"
	# Rootful docker on Linux writes as root: the files go back to you.
	owner=''
	if [ "$engine" = docker ] && [ "$os" = Linux ] &&
		[ "$(id -u)" != 0 ] && ! docker info 2>/dev/null |
		grep -qi rootless; then
		owner=$(id -u):$(id -g)
	fi
	# shellcheck disable=SC2016 # expanded by the container's sh
	script='
		for d in run demo; do
			[ ! -d "/host/out/$d" ] || cp -R "/host/out/$d" out/
		done
		rc=0
		"$@" || rc=$?
		for d in run demo grade; do
			[ -d "out/$d" ] || continue
			find "out/$d" -type p -exec rm -f {} +
			rm -rf "/host/out/$d"
			cp -R "out/$d" /host/out/
			[ -z "$LAB_OWNER" ] ||
				chown -R "$LAB_OWNER" "/host/out/$d" lab
		done
		exit "$rc"'
	case "$PWD" in
	*' '*)
		say "the lab's folder has a space in its path ($PWD):" \
			"move it to a path without one"
		exit 1
		;;
	esac
	if [ "$interactive" = 1 ]; then
		# The consoles: a terminal if there is one, and no bound.
		if [ -t 0 ] && [ -t 1 ]; then
			# shellcheck disable=SC2086 # the options are words
			ctr run -it $opts -e LAB_OWNER="$owner" "$image" \
				sh -c "$script" sh "$@"
		else
			# shellcheck disable=SC2086
			ctr run -i $opts -e LAB_OWNER="$owner" "$image" \
				sh -c "$script" sh "$@"
		fi
		return
	fi
	stop_hook=stop_container
	trap 'stop_container; exit 130' INT TERM
	i_rc=0
	# shellcheck disable=SC2086
	bounded "$max" ctr run $opts -e LAB_OWNER="$owner" "$image" \
		sh -c "$script" sh "$@" || i_rc=$?
	# The container's paths (/opt/rdma-lab/out/...) are these here.
	say "ran in the container ($engine, $image): its out/run, out/demo" \
		"and out/grade are in $PWD/out/"
	return "$i_rc"
}
stop_container() {
	ctr rm -f "$name" >/dev/null 2>&1 || true
}

# run CMD...: CMD here or in the container.
interactive=0
run() {
	where
	if [ "$place" = host ]; then
		"$@"
	else
		in_container "$@"
	fi
}

[ $# -gt 0 ] || usage
action=$1
shift
case "$action" in
demo | run | grade | ladder) run make "$action" "$@" ;;
shell)
	interactive=1
	run vm/run --shell "$@"
	;;
make) run make "$@" ;;
exec)
	[ $# -gt 0 ] || usage
	run "$@"
	;;
image)
	find_engine || {
		say "no docker or podman here"
		exit 1
	}
	build_image
	;;
where)
	where
	if [ "$place" = container ]; then
		find_engine || engine=none
		why="$why; engine $engine, image $image"
	fi
	echo "$place: $why"
	;;
-h | --help | help) usage ;;
*) usage ;;
esac
