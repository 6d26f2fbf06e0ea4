# index-notes.sh, sourced by the scripts that measure memd on a corpus
# (scifact.sh, boilerplate.sh):
#
#   index_notes BIN WORK NOTES
#
# starts BIN/memd on WORK/data and the socket WORK/memd.sock (log in
# WORK/memd.log, MEMD_CPUPROFILE passed through), adds NOTES with `memctl
# add --wait` and sets sock, pid, wall (seconds), cpu (the daemon's
# user+sys seconds) and rss (its peak, MB). The daemon runs until the
# script exits.
index_notes() {
	local bin=$1 work=$2 notes=$3 t0 t1
	sock=$work/memd.sock
	MEMD_CPUPROFILE=${MEMD_CPUPROFILE:-} "$bin/memd" --data "$work/data" --socket "$sock" 2>"$work/memd.log" &
	pid=$!
	trap 'kill $pid 2>/dev/null || true' EXIT
	for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
	t0=$(date +%s.%N)
	"$bin/memctl" --socket "$sock" add --wait "$notes" >/dev/null
	t1=$(date +%s.%N)
	wall=$(echo "$t1 - $t0" | bc)
	cpu=$(awk '{print ($14+$15)/100}' "/proc/$pid/stat")
	rss=$(awk '/VmHWM/{print $2/1024}' "/proc/$pid/status")
}
