#!/usr/bin/env bash
# Side by side: simjoin against the C++ set-similarity joins, on the same
# sets, in one run, each program RUNS times in turn; prints a table of medians.
#
#   MANN=/path/to/set_sim_join/binary TSINGHUA=/path/to/checkout scripts/cpp-compare.sh
#
# The two C++ suites (either may be left out, not both):
#   - MANN: the program of Mann, Augsten and Bouros's study ("An empirical
#     evaluation of set similarity join techniques", VLDB 2016), Willi Mann's
#     set_sim_join, as built from its sources (BENCHMARKS.md names the
#     repository and commit measured): AllPairs, PPJoin, PPJoin+ (the suffix
#     filter), MPJoin, GroupJoin and AdaptJoin. It reads integer records,
#     ordered (set_sim_join's raw input).
#   - TSINGHUA: a checkout of Tsinghua's Similarity-Search-and-Join in which
#     their own makefiles have built ppjoin-token/{allpair-token,
#     ppjoin-token,ppjoinplus-token} and adaptjoin/adaptjoin.
# The script fetches and builds nothing of theirs.
#
# Workloads (WORKLOADS, default "zipf long pw gotree"):
#   - zipf: the literature's 1M Zipf sets of scripts/bench-exact.sh at the
#     thresholds ZIPF_T (default "0.9 0.8 0.5");
#   - long: 20,000 long sets of Zipf tokens (sizes 200-400, 10% near
#     duplicates), t = 0.5;
#   - pw: the generated 59,000-password list of BENCHMARKS.md's Passwords
#     section, character bigrams, t = 0.8 (and `simjoin passwords`);
#   - gotree: the article's experiment, every non-test .go file of
#     $(go env GOROOT)/src outside testdata with at least 50 shingles, as its
#     five-token shingles (go:5), t = 0.5. simjoin joins the shingles written
#     as integers (each shingle's 64-bit hash, as a user who hashed their own
#     tokens writes them: ssjconv -format keys), and once from the source
#     files; the C++ programs join the same sets numbered rare-first.
# internal/testkit/cmd/ssjconv converts each input with simjoin's own tokenizer and
# rare-first order (integer ids, sets sorted, records by size) into each
# suite's format, so every program joins identical sets.
#
# With MANN, set_sim_join also runs from the text simjoin reads, through its
# own reader (--whitespace, or --qgram 2 for the passwords), with the
# algorithm MANN_TEXT (default allpairs): the comparison a user makes, text
# in and pairs out. Those rows ("mann text:...") are left out of the best
# C++ figures (which read ready ids); the last column compares simjoin's
# whole CPU with theirs. Their pair counts are shown, not checked: its
# q-grams and its rounding at t are its own.
#
# Measured per process: wall time and CPU (user + system) from /usr/bin/time,
# and peak RSS. "join" is the join on ready sets: for simjoin its join phase
# (wall: index and join time of --stats-json; CPU: the phase's cpu_s; no
# reading, ordering or planning); for set_sim_join the CPU time it prints of
# its index and join steps (its reading is apart); for Tsinghua's programs,
# which print no such split, their whole process (its reading included).
# The C++ programs are single-threaded, so their join's CPU is its wall time
# on a quiet machine: "join wall / best C++ join" compares simjoin's join
# phase on both cores with it. Pairs: every program must report the
# same number, except that set_sim_join loses pairs exactly at the threshold
# (it rounds its minimum overlap in floating point): its count is shown and
# the script says how many it lost. On a machine shared with other work
# compare CPU. Data and work files go to ${DATA:-/tmp/simjoin-cpp}; RUNS
# defaults to 3.
set -euo pipefail
mann=${MANN:-}
ts=${TSINGHUA:-}
if [ -z "$mann" ] && [ -z "$ts" ]; then
  echo "usage: MANN=SET_SIM_JOIN_BINARY TSINGHUA=CHECKOUT $0 (either may be left out)" >&2
  exit 2
fi
if [ -n "$mann" ] && [ ! -x "$mann" ]; then
  echo "$0: MANN=$mann is not an executable" >&2
  exit 1
fi
if [ -n "$ts" ]; then
  ts=$(cd "$ts" && pwd)
  for b in ppjoin-token/allpair-token ppjoin-token/ppjoin-token ppjoin-token/ppjoinplus-token adaptjoin/adaptjoin; do
    if [ ! -x "$ts/$b" ]; then
      echo "$0: $ts/$b not built: run their makefiles in ppjoin-token and adaptjoin first" >&2
      exit 1
    fi
  done
fi
cd "$(dirname "$0")/.."
data=$(mkdir -p "${DATA:-/tmp/simjoin-cpp}" && cd "${DATA:-/tmp/simjoin-cpp}" && pwd)
runs=${RUNS:-3}

go build -o "$data/simjoin" ./cmd/simjoin
go build -o "$data/ssjconv" ./internal/testkit/cmd/ssjconv
goflags=(--files --tokens go:5 --include '*.go' --exclude '*_test.go' --exclude '*/testdata/*' --min-tokens 50)
gosrc=$(go env GOROOT)/src

# prepare WORKLOAD: writes the workload's text input and both converted ones.
prepare() {
  local w=$1
  case $w in
  zipf) [ -s "$data/zipf.txt" ] || go run ./internal/testkit/cmd/gen sets -n 1000000 -min 10 -max 50 \
      -universe 1000000 -zipf 1 -dup 0.3 -replace 0.1 -seed 1 > "$data/zipf.txt" ;;
  long) [ -s "$data/long.txt" ] || go run ./internal/testkit/cmd/gen sets -n 20000 -min 200 -max 400 \
      -universe 20000 -zipf 1 -dup 0.1 -replace 0.1 -seed 2 > "$data/long.txt" ;;
  pw) [ -s "$data/pw.txt" ] || go run ./internal/testkit/cmd/pwgen -n 59000 -seed 1 > "$data/pw.txt" ;;
  gotree) [ -s "$data/gotree.txt" ] || "$data/ssjconv" -format keys "${goflags[@]}" "$gosrc" > "$data/gotree.txt" ;;
  esac
  local tokens=set
  [ "$w" = pw ] && tokens=qgram:2
  [ -s "$data/$w.bin" ] || "$data/ssjconv" -tokens "$tokens" "$data/$w.txt" > "$data/$w.bin"
  [ -s "$data/$w.ints" ] || "$data/ssjconv" -tokens "$tokens" -format text "$data/$w.txt" > "$data/$w.ints"
}

results=$data/results.tsv
: > "$results"
echo "machine: $(nproc) cores, $(uname -m); load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
[ -z "$ts" ] || echo "Tsinghua checkout: $(git -C "$ts" rev-parse HEAD 2>/dev/null || echo 'not a git checkout')" >&2
[ -z "$mann" ] || echo "set_sim_join: $mann" >&2
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
  mann*)
    # set_sim_join prints "Result pair count: N" and, with --timings, the
    # CPU milliseconds of each step.
    read -r pairs join < <(awk '/^Result pair count:/ { p = $4 } $1 == "algoindex" || $1 == "algojoin" { ms += $2 }
      END { print p, ms / 1000 }' "$data/out")
    joincpu=$join
    ;;
  *)
    # Tsinghua's programs print pairs, candidates, seconds since start, peak RSS (GB).
    pairs=$(sed -n 1p "$data/out")
    join=$(sed -n 3p "$data/out")
    joincpu=$cpu
    ;;
  esac
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$w" "$t" "$prog" "$wall" "$cpu" "$rss" "$pairs" "$join" "$joincpu" >> "$results"
}

# one WORKLOAD T SIMJOIN_ARGS...: every program once, in turn.
one() {
  local w=$1 t=$2
  shift 2
  local text=$data/$w.txt bin=$data/$w.bin ints=$data/$w.ints
  for j in 1 2; do
    timed "$w" "$t" "simjoin -j $j" "$data/simjoin" "$@" -t "$t" -j "$j" --stats-json "$data/stats.json" "$text"
  done
  if [ -n "$mann" ]; then
    for a in allpairs ppjoin "ppjoin --suffixfilter" "ppjoin --mpjoin" "groupjoin --mpjoin" adaptjoin; do
      local name
      case $a in
      allpairs) name=AllPairs ;; ppjoin) name=PPJoin ;; "ppjoin --suffixfilter") name=PPJoin+ ;;
      "ppjoin --mpjoin") name=MPJoin ;; "groupjoin --mpjoin") name=GroupJoin ;; adaptjoin) name=AdaptJoin ;;
      esac
      # shellcheck disable=SC2086 # $a holds the algorithm and its flag
      timed "$w" "$t" "mann:$name" "$mann" --input "$ints" --threshold "$t" --timings --algorithm $a
    done
    local reader=--whitespace
    [ "$w" = pw ] && reader="--qgram 2"
    # shellcheck disable=SC2086 # $reader holds the flag and its value
    timed "$w" "$t" "mann text:${MANN_TEXT:-allpairs}" "$mann" --input "$text" --threshold "$t" --timings \
      --algorithm "${MANN_TEXT:-allpairs}" $reader
  fi
  if [ -n "$ts" ]; then
    timed "$w" "$t" "tsinghua:AllPairs" "$ts/ppjoin-token/allpair-token" j "$bin" "$t"
    timed "$w" "$t" "tsinghua:PPJoin" "$ts/ppjoin-token/ppjoin-token" j "$bin" "$t"
    timed "$w" "$t" "tsinghua:PPJoin+" "$ts/ppjoin-token/ppjoinplus-token" j "$bin" "$t"
    timed "$w" "$t" "tsinghua:AdaptJoin" "$ts/adaptjoin/adaptjoin" jaccard "$bin" "$t"
  fi
}

workloads=${WORKLOADS:-zipf long pw gotree}
for w in $workloads; do
  case $w in
  zipf | long | pw | gotree) prepare "$w" ;;
  *) echo "$0: unknown workload $w (want zipf, long, pw or gotree)" >&2; exit 2 ;;
  esac
done
for r in $(seq "$runs"); do
  for w in $workloads; do
    case $w in
    zipf) for t in ${ZIPF_T:-0.9 0.8 0.5}; do
        one zipf "$t" join --method exact
      done ;;
    long) one long 0.5 join --method exact ;;
    pw)
      one pw 0.8 join --method exact --tokens qgram:2
      timed pw 0.8 "simjoin passwords -j 1" "$data/simjoin" passwords -t 0.8 -j 1 --stats-json "$data/stats.json" "$data/pw.txt"
      ;;
    gotree)
      one gotree 0.5 join --method exact
      for j in 1 2; do
        (cd "$gosrc" && timed gotree 0.5 "simjoin -j $j, from source" "$data/simjoin" join --method exact \
          "${goflags[@]}" -t 0.5 -j "$j" --stats-json "$data/stats.json" .)
      done
      ;;
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
      "| join CPU / best C++ join | join wall / best C++ join | whole CPU / best C++ whole | whole CPU / C++ from text |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for w, t in dict.fromkeys((k[0], k[1]) for k in order):
    progs = [k for k in order if k[:2] == (w, t)]
    cpp = [k for k in progs if not k[2].startswith(("simjoin", "mann text:"))]
    text = [k for k in progs if k[2].startswith("mann text:")]
    best_join = min(med(k, "joincpu") for k in cpp)
    best_cpu = min(med(k, "cpu") for k in cpp)
    text_cpu = min((med(k, "cpu") for k in text), default=math.nan)
    for k in progs:
        jc, c = med(k, "joincpu"), med(k, "cpu")
        print(f"| {w} | {t} | {k[2]} | {len(rows[k])} | {rows[k][0]['pairs']:,} | {med(k, 'join'):.3f} | {fmt(jc, '.3f')} | "
              f"{med(k, 'wall'):.2f} | {c:.2f} | {med(k, 'rss') / 1024:.0f} | {fmt(jc / best_join, '.2f')}x | "
              f"{med(k, 'join') / best_join:.2f}x | {c / best_cpu:.2f}x | {fmt(c / text_cpu, '.2f')}x |")
    full = {r["pairs"] for k in progs if not k[2].startswith("mann") for r in rows[k]}
    mann = {r["pairs"] for k in progs if k[2].startswith("mann:") for r in rows[k]}
    if len(full) > 1:
        print(f"\n**{w} t={t}: the programs disagree on the number of pairs: {sorted(full)}**\n")
    elif mann and full:
        (n,) = full
        if len(mann) > 1 or max(mann) > n:
            print(f"\n**{w} t={t}: set_sim_join's programs disagree: {sorted(mann)} (others {n})**\n")
        elif min(mann) < n:
            print(f"\n{w} t={t}: set_sim_join finds {min(mann):,} of the {n:,} pairs (it loses the pairs exactly at t).\n")
PY
