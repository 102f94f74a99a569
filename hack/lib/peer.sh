# hack/lib/peer.sh — what the scripts that build peers (hack/helm-peer.sh, hack/tool-peer.sh,
# hack/krew-tools.sh) share: building a program we compare with or drive, never link, from the
# Go module proxy into a cache directory outside this repository, once, safely when several
# builds run at once. Sourced, not run; the caller sets `peer_name` (its log prefix) first.

peer_log() { printf '%s: %s\n' "$peer_name" "$*" >&2; }
peer_die() {
	peer_log "error: $*"
	exit 1
}

# peer_cache_dir PART... prints the absolute cache directory for the given path parts.
peer_cache_dir() {
	local dir
	dir="${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-chart"
	local part
	for part in "$@"; do dir+="/$part"; done
	[[ $dir == /* ]] || dir="$PWD/$dir"
	echo "$dir"
}

# peer_find_go sets GO to the go command (GO from the environment, PATH, or /usr/local/go).
peer_find_go() {
	GO="${GO:-go}"
	if ! command -v "$GO" >/dev/null 2>&1; then
		[[ -x /usr/local/go/bin/go ]] || peer_die "go not found (set GO=/path/to/go)"
		GO=/usr/local/go/bin/go
	fi
}

# peer_start CACHE RESULT TEST... prints RESULT and exits when the command TEST... succeeds (the
# peer is built); otherwise finds go, takes CACHE's build lock, tests again under it (another build
# may have finished meanwhile), and sets up the work directory and an isolated build.
peer_start() {
	local cache=$1 result=$2
	shift 2
	if "$@"; then
		echo "$result"
		exit 0
	fi
	peer_find_go
	peer_lock "$cache"
	if "$@"; then
		echo "$result"
		exit 0
	fi
	peer_workdir "$cache"
	peer_isolate
}

# peer_lock CACHE takes the cache directory's build lock on fd 9 (held until the script exits):
# one builder at a time per cache directory; the others wait, then find the result already there.
peer_lock() {
	mkdir -p "$1"
	exec 9>"$1/.lock"
	if command -v flock >/dev/null 2>&1; then
		flock 9 || peer_die "cannot lock $1/.lock"
	fi
}

# peer_workdir CACHE sets `work` to a new throwaway build directory inside CACHE, removed on exit
# (made writable first: copies of the read-only module cache live there). Not for $(...): the
# exit trap would fire when the subshell ends.
peer_workdir() {
	work="$(mktemp -d "$1/build.XXXXXX")"
	trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
}

# peer_isolate keeps a go.work above the cache directory, or the caller's GOFLAGS (-mod=vendor ...),
# out of the build.
peer_isolate() {
	export GOWORK=off GOFLAGS=-buildvcs=false CGO_ENABLED=0
}
