#!/bin/sh
# The peer of the packer's large-block benchmark (bench/bench_packbig.c; docs/PERFORMANCE.md "Packer speed on
# large blocks"): LLVM's machine scheduler and Hexagon packetizer, `llc -march=hexagon -O2`, timed on one basic
# block of N integer operations (add, sub, mul, and, or, xor, shl, lshr on i32) at N = 1000, 8000, 64000, and
# on 1000 functions of one 37-operation block each (the size of an average GPU_FFT block).  The IR is made
# by a deterministic generator (awk, a linear congruential generator) in the manner of bench/packgen.h: 64
# live values stand for registers, each operation overwrites one of them from two sources, about half of them
# one of the last 8 written (dependent chains), the rest any (independent work); the function returns the
# xor of the 64 values.  Operations whose value is overwritten before any use are dead and llc drops them:
# the operations per second below count every generated operation, which flatters the peer.
#
# Usage: bench/peer_llc_hexagon.sh [N ...]   Environment: LLC (default: llc-19, else llc on PATH).
#        bench/peer_llc_hexagon.sh --ir N > f.ll   writes the IR of one block of N operations.
# Prints one Markdown row per size: llc version, operations, user+sys CPU seconds of the whole llc run
# (/usr/bin/time) and operations per second; then, from a second run with -time-passes, the user+system
# seconds of the scheduling passes alone (Machine Instruction Scheduler, Post RA top-down list latency
# scheduler, Hexagon Packetizer: the figures issue 11 quotes) and operations per second on them.  Skips cleanly (exit 0, a note on stderr) when no llc with the Hexagon
# target is installed.
set -eu
LLC=${LLC:-}
if [ -z "$LLC" ]; then
    if command -v llc-19 >/dev/null 2>&1; then LLC=llc-19; elif command -v llc >/dev/null 2>&1; then LLC=llc; fi
fi
if [ -z "$LLC" ] || ! "$LLC" --version 2>/dev/null | grep -q hexagon; then
    echo "peer_llc_hexagon: no llc with the Hexagon target (set LLC): skipped" >&2
    exit 0
fi
ver=$("$LLC" --version | sed -n 's/.*LLVM version \([0-9.]*\).*/\1/p' | head -1)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# gen NFUNC NOPS > file.ll
gen() {
    awk -v nf="$1" -v n="$2" 'BEGIN {
        s = 1; split("add sub mul and or xor shl lshr", ops, " ")
        for (f = 0; f < nf; f++) {
            printf "define i32 @f%d(", f
            for (a = 0; a < 8; a++) printf "%si32 %%a%d", a ? ", " : "", a
            printf ") {\nentry:\n"
            for (r = 0; r < 64; r++) reg[r] = "%a" (r % 8)
            nrec = 0; v = 0
            for (i = 0; i < n; i++) {
                d = rnd(64)
                x = src(); y = src()
                o = ops[1 + rnd(8)]
                if (o == "shl" || o == "lshr") y = rnd(31)
                printf "  %%v%d = %s i32 %s, %s\n", v, o, x, y
                reg[d] = "%v" v; v++
                if (nrec < 8) rec[nrec++] = d; else rec[rnd(8)] = d
            }
            acc = reg[0]
            for (r = 1; r < 64; r++) { printf "  %%x%d = xor i32 %s, %s\n", r, acc, reg[r]; acc = "%x" r }
            printf "  ret i32 %s\n}\n", acc
        }
    }
    function rnd(k) { s = (s * 1103515245 + 12345) % 2147483648; return int(s / 65536) % k }
    function src() { if (nrec && rnd(2)) return reg[rec[rnd(nrec)]]; return reg[rnd(64)] }'
}

# row NAME NFUNC NOPS
row() {
    gen "$2" "$3" > "$dir/f.ll"
    if ! /usr/bin/env time -f '%U %S' -o "$dir/t" "$LLC" -march=hexagon -O2 "$dir/f.ll" -o "$dir/f.s"; then
        echo "| llc $ver | $1 | llc failed | | |"
        return
    fi
    t=$(tail -1 "$dir/t")
    # the scheduling passes alone: a second run with -time-passes (user+system column)
    p=$("$LLC" -march=hexagon -O2 -time-passes "$dir/f.ll" -o "$dir/f.s" 2>&1 |
        awk '/Machine Instruction Scheduler$|Post RA top-down list latency scheduler$|Hexagon Packetizer$/ {
                 if (!seen[$0]++) { gsub(/\([^)]*\)/, ""); sum += $3 } } END { printf "%.3f", sum }')
    awk -v name="$1" -v ver="$ver" -v ops=$(( $2 * $3 )) -v t="$t" -v p="$p" 'BEGIN {
        split(t, a, " "); s = a[1] + a[2]; if (s <= 0) s = 0.005; q = p > 0 ? p : 0.0005
        printf "| llc %s -march=hexagon -O2 | %s | %d | %.3f | %.0f | %.3f | %.0f |\n", ver, name, ops, s, ops / s,
               p, ops / q }'
}

if [ "${1:-}" = --ir ]; then   # only the IR of one block of N operations, for timing llc by other means
    gen 1 "$2"
    exit 0
fi
echo "| peer | block | ops | llc CPU seconds | ops/s | scheduling passes CPU seconds | ops/s |"
echo "|---|---|---|---|---|---|---|"
if [ $# -eq 0 ]; then set -- 1000 8000 64000; small=1; else small=0; fi
for n in "$@"; do row "one block of $n" 1 "$n"; done
[ "$small" = 1 ] && row "1000 blocks of 37" 1000 37
exit 0
