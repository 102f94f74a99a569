# hack/lib/benchstats.sh — the figures the whole-process benchmarks (hack/bench-*.sh) report from
# their samples. Sourced, not run.

# bench_stats SAMPLES... prints "median min max" (seconds, 3 decimals; the median of an even
# count is the mean of the middle two); "- - -" without samples.
bench_stats() {
	if (($# == 0)); then
		echo "- - -"
		return
	fi
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.3f %.3f %.3f\n", m, v[1], v[NR] }'
}

# bench_median SAMPLES... prints the median alone.
bench_median() {
	local m
	m="$(bench_stats "$@")"
	echo "${m%% *}"
}
