#!/usr/bin/env bash
# Side by side: simjoin against the token-based C++ set-similarity joins of
# Tsinghua's Similarity-Search-and-Join
# (github.com/TsinghuaDatabaseGroup/Similarity-Search-and-Join: AllPairs,
# PPJoin, PPJoin+ in ppjoin-token/, AdaptJoin in adaptjoin/), on the same sets,
# in one run, each program RUNS times in turn; prints a table of medians.
#
#   scripts/cpp-compare.sh TSINGHUA_CHECKOUT
#
# The script fetches and builds nothing of theirs: TSINGHUA_CHECKOUT is a
# checkout in which their own makefiles have already built
# ppjoin-token/{allpair-token,ppjoin-token,ppjoinplus-token} and
# adaptjoin/adaptjoin. BENCHMARKS.md names the commit measured.
#
# Workloads (WORKLOADS, default "zipf pw"): zipf is the literature's 1M Zipf
# sets of scripts/bench-exact.sh at the thresholds ZIPF_T (default "0.9 0.8");
# pw is the generated 59,000-password list of BENCHMARKS.md's Passwords
# section, character bigrams, t = 0.8. The text inputs are converted with
# internal/cmd/ssjconv, which tokenizes and orders them exactly as simjoin
# does (rare-first integer ids, sets sorted, records by size), into the binary
# format their programs read; every program must report the same number of
# pairs, or the script says so.
#
# Measured per process: wall time and CPU (user + system) from /usr/bin/time,
# peak RSS. "join" is, for simjoin, its join phase on ready sets (wall: the
# index and join time of --stats-json; CPU: the join phase's cpu_s, no
# reading, ordering or planning) and, for the C++ programs, which are
# single-threaded, their whole process: the time they print themselves and
# their CPU, which include reading their binary input (already ordered: they
# do no tokenizing or ordering). On a machine shared with other work, compare
# CPU: wall times stretch with the load. Data and work files go to
# ${DATA:-/tmp/simjoin-cpp}; RUNS defaults to 3.
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: $0 TSINGHUA_CHECKOUT" >&2
  exit 2
fi
ts=$(cd "$1" && pwd)
cd "$(dirname "$0")/.."
data=${DATA:-/tmp/simjoin-cpp}
runs=${RUNS:-3}
mkdir -p "$data"
for b in ppjoin-token/allpair-token ppjoin-token/ppjoin-token ppjoin-token/ppjoinplus-token adaptjoin/adaptjoin; do
  if [ ! -x "$ts/$b" ]; then
    echo "$0: $ts/$b not built: run their makefiles in ppjoin-token and adaptjoin first" >&2
    exit 1
  fi
done
go build -o "$data/simjoin" ./cmd/simjoin
go build -o "$data/ssjconv" ./internal/cmd/ssjconv
[ -s "$data/zipf1m.txt" ] || go run ./internal/cmd/gen sets -n 1000000 -min 10 -max 50 \
  -universe 1000000 -zipf 1 -dup 0.3 -replace 0.1 -seed 1 > "$data/zipf1m.txt"
[ -s "$data/pw59k.txt" ] || go run ./passwords/internal/pwgen -n 59000 -seed 1 > "$data/pw59k.txt"
[ -s "$data/zipf1m.bin" ] || "$data/ssjconv" -tokens set "$data/zipf1m.txt" > "$data/zipf1m.bin"
[ -s "$data/pw59k.bin" ] || "$data/ssjconv" -tokens qgram:2 "$data/pw59k.txt" > "$data/pw59k.bin"

results=$data/results.tsv
: > "$results"
echo "machine: $(nproc) cores, $(uname -m); load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "Tsinghua checkout: $(git -C "$ts" rev-parse HEAD 2>/dev/null || echo 'not a git checkout')" >&2
echo "simjoin: $(git rev-parse --short HEAD)" >&2

# timed WORKLOAD T PROGRAM CMD...: runs CMD under /usr/bin/time and appends
# one line to $results: workload, t, program, wall, cpu, rss KiB, pairs,
# join wall s, join CPU s.
timed() {
  local w=$1 t=$2 prog=$3
  shift 3
  /usr/bin/time -f "%e %U %S %M" -o "$data/time" "$@" > "$data/out" 2> "$data/err" || {
    echo "$0: $prog failed on $w t=$t:" >&2
    cat "$data/err" >&2
    exit 1
  }
  local wall user sys rss pairs join joincpu cpu
  read -r wall user sys rss < "$data/time"
  cpu=$(awk "BEGIN { print $user + $sys }")
  case $prog in
  simjoin*)
    read -r pairs join joincpu < <(python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
e = s["exact"]
cpu = {p["name"]: p.get("cpu_s", float("nan")) for p in s["phases"]}
print(s["results"], e["index_s"] + e["join_s"], cpu.get("join", float("nan")))' "$data/stats.json")
    ;;
  *)
    # Their programs print pairs, candidates, seconds since start, peak RSS (GB).
    pairs=$(sed -n 1p "$data/out")
    join=$(sed -n 3p "$data/out")
    joincpu=$cpu
    ;;
  esac
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$w" "$t" "$prog" "$wall" "$cpu" "$rss" "$pairs" "$join" "$joincpu" >> "$results"
}

# one WORKLOAD T TEXT BIN SIMJOIN_ARGS...: every program once, in turn.
one() {
  local w=$1 t=$2 text=$3 bin=$4
  shift 4
  for j in 1 2; do
    timed "$w" "$t" "simjoin -j $j" "$data/simjoin" "$@" -t "$t" -j "$j" --stats-json "$data/stats.json" "$text"
  done
  timed "$w" "$t" "AllPairs" "$ts/ppjoin-token/allpair-token" j "$bin" "$t"
  timed "$w" "$t" "PPJoin" "$ts/ppjoin-token/ppjoin-token" j "$bin" "$t"
  timed "$w" "$t" "PPJoin+" "$ts/ppjoin-token/ppjoinplus-token" j "$bin" "$t"
  timed "$w" "$t" "AdaptJoin" "$ts/adaptjoin/adaptjoin" jaccard "$bin" "$t"
}

for r in $(seq "$runs"); do
  for w in ${WORKLOADS:-zipf pw}; do
    case $w in
    zipf) for t in ${ZIPF_T:-0.9 0.8}; do
        one zipf "$t" "$data/zipf1m.txt" "$data/zipf1m.bin" join --method exact
      done ;;
    pw)
      one pw 0.8 "$data/pw59k.txt" "$data/pw59k.bin" join --method exact --tokens qgram:2
      timed pw 0.8 "simjoin passwords -j 1" "$data/simjoin" passwords -t 0.8 -j 1 --stats-json "$data/stats.json" "$data/pw59k.txt"
      ;;
    *) echo "$0: unknown workload $w (want zipf or pw)" >&2; exit 2 ;;
    esac
  done
  echo "run $r of $runs done; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
done

python3 - "$results" <<'PY'
import math, statistics, sys
from collections import defaultdict
rows = defaultdict(list)
order = []
for line in open(sys.argv[1]):
    w, t, prog, wall, cpu, rss, pairs, join, joincpu = line.rstrip("\n").split("\t")
    key = (w, t, prog)
    if key not in rows:
        order.append(key)
    rows[key].append(dict(wall=float(wall), cpu=float(cpu), rss=int(rss), pairs=int(pairs),
                          join=float(join), joincpu=float(joincpu)))
def med(key, f):
    return statistics.median(r[f] for r in rows[key])
def fmt(x, spec):
    return "-" if math.isnan(x) else format(x, spec)
print("| workload | t | program | runs | pairs | join wall s | join CPU s | whole wall s | whole CPU s | peak RSS MiB "
      "| join CPU / best C++ | join wall / best C++ | whole CPU / best C++ |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for w, t in dict.fromkeys((k[0], k[1]) for k in order):
    progs = [k for k in order if k[:2] == (w, t)]
    cpp = [k for k in progs if not k[2].startswith("simjoin")]
    best_cpu = min(med(k, "cpu") for k in cpp)
    best_wall = min(med(k, "join") for k in cpp)
    pairs = {r["pairs"] for k in progs for r in rows[k]}
    for k in progs:
        jc, jw, c = med(k, "joincpu"), med(k, "join"), med(k, "cpu")
        print(f"| {w} | {t} | {k[2]} | {len(rows[k])} | {rows[k][0]['pairs']:,} | {jw:.3f} | {fmt(jc, '.3f')} | "
              f"{med(k, 'wall'):.2f} | {c:.2f} | {med(k, 'rss') / 1024:.0f} | {fmt(jc / best_cpu, '.2f')}x | "
              f"{jw / best_wall:.2f}x | {c / best_cpu:.2f}x |")
    if len(pairs) != 1:
        print(f"\n**{w} t={t}: the programs disagree on the number of pairs: {sorted(pairs)}**\n")
PY
