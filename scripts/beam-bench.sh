#!/usr/bin/env bash
# Regenerates the "Beyond one machine" figures of BENCHMARKS.md: the Beam
# pipelines on Prism (in-process) against the single-machine CLI on the same
# data. Usage: scripts/beam-bench.sh [N_SETS] [THRESHOLD...]; data goes to
# ${DATA:-/tmp/simjoin-bench}. N_SETS is the first lines of the 1M-set file.
# PARTS (default "join dedup") picks the tables: the joins against the CLI,
# dedup of N_SETS copies of one line against N_SETS distinct lines, and
# (hot) the exact join at Jaccard 0.5 of HOT_N (default 20,000) records of
# one token each, and of the same records all sharing one more token, at the
# default --block-size and at 128. BEAM names another simjoin-beam binary to
# measure (one built from an earlier commit) instead of this tree's.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${DATA:-/tmp/simjoin-bench}
n=${1:-100000}
shift || true
ts=${*:-0.9 0.8}
mkdir -p "$data"
go build -o "$data/simjoin" ./cmd/simjoin
(cd beam && go build -o "$data/simjoin-beam" ./cmd/simjoin-beam)
beam=${BEAM:-$data/simjoin-beam}
[ -s "$data/zipf1m.txt" ] || go run ./internal/testkit/cmd/gen sets -n 1000000 -min 10 -max 50 \
  -universe 1000000 -zipf 1 -dup 0.3 -replace 0.1 -seed 1 > "$data/zipf1m.txt"
[ -s "$data/docs20k.txt" ] || go run ./internal/testkit/cmd/gen docs -seed 1 > "$data/docs20k.txt"
head -n "$n" "$data/zipf1m.txt" > "$data/zipf-$n.txt"
# beam_stats sets same (whether the job's pairs are those of $data/cli.out),
# recs and shuf (records and shuffled bytes, from the job's --stats).
beam_stats() {
  same=no
  cmp -s <(sort "$data/cli.out") <(sort "$data/beam-00000-of-00001") && same=yes
  recs=$(awk '/^records /{gsub(",","",$2); print $2}' "$data/beam.stats")
  shuf=$(awk '/^shuffled bytes /{gsub(",","",$3); print $3}' "$data/beam.stats")
}
row() { # file method threshold
  local f=$1 method=$2 t=$3 cmd=join
  /usr/bin/time -f "%e %M" -o "$data/time.cli" "$data/simjoin" join --method "$method" -t "$t" "$f" > "$data/cli.out"
  /usr/bin/time -f "%e %M" -o "$data/time.beam" "$beam" join --method "$method" -t "$t" \
    --input "$f" --output "$data/beam" --stats 2> "$data/beam.stats"
  read -r cw cr < "$data/time.cli"
  read -r bw br < "$data/time.beam"
  local same recs shuf pairs
  beam_stats
  pairs=$(wc -l < "$data/cli.out")
  python3 - "$f" "$method" "$t" "$recs" "$pairs" "$bw" "$br" "$cw" "$cr" "$shuf" "$same" <<'PY'
import sys, os
f, m, t, recs, pairs, bw, br, cw, cr, shuf, same = sys.argv[1:]
recs, pairs, shuf = int(recs), int(pairs), int(shuf)
bw, cw = float(bw), float(cw)
print(f"| {os.path.basename(f)} | {m} | {t} | {recs:,} | {pairs:,} | {bw:.1f} | {int(br)/1024:.0f} | "
      f"{cw:.2f} | {int(cr)/1024:.0f} | {bw/cw:.0f}x | {shuf/1e6:.1f} | {shuf/recs:.0f} | {same} |")
PY
}
parts=${PARTS:-join dedup}
if [[ " $parts " == *" join "* ]]; then
  echo "| data | method | t | records | pairs | Prism wall s | Prism peak MiB | CLI wall s | CLI peak MiB | Prism/CLI | shuffled MB | shuffled bytes/record | same pairs |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  for t in $ts; do row "$data/zipf-$n.txt" exact "$t"; done
  row "$data/docs20k.txt" lsh 0.8
fi
dedup_row() { # file method
  local f=$1 method=$2
  /usr/bin/time -f "%e %M" -o "$data/time.beam" "$beam" dedup --method "$method" -t 0.8 \
    --input "$f" --output "$data/kept" --stats 2> "$data/beam.stats"
  read -r bw br < "$data/time.beam"
  local shuf kept
  shuf=$(awk '/^shuffled bytes /{gsub(",","",$3); print $3}' "$data/beam.stats")
  kept=$(wc -l < "$data/kept-00000-of-00001")
  python3 - "$f" "$method" "$n" "$kept" "$bw" "$br" "$shuf" <<'PY'
import sys, os
f, m, n, kept, bw, br, shuf = sys.argv[1:]
n, shuf = int(n), int(shuf)
print(f"| {os.path.basename(f)} | {m} | {n:,} | {int(kept):,} | {float(bw):.1f} | {int(br)/1024:.0f} | {shuf/1e6:.1f} | {shuf/n:.0f} |")
PY
}
if [[ " $parts " == *" dedup "* ]]; then
  awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) print "the same line again and again" }' > "$data/copies-$n.txt"
  echo "| data | method | records | kept | Prism wall s | Prism peak MiB | shuffled MB | shuffled bytes/record |"
  echo "|---|---|---|---|---|---|---|---|"
  for m in exact lsh; do
    dedup_row "$data/zipf-$n.txt" "$m"
    dedup_row "$data/copies-$n.txt" "$m"
  done
fi
hot_row() { # file block-size
  local f=$1 bs=$2
  "$data/simjoin" join --method exact -t 0.5 "$f" > "$data/cli.out"
  /usr/bin/time -f "%e %M" -o "$data/time.beam" "$beam" join --method exact -t 0.5 \
    --block-size "$bs" --input "$f" --output "$data/beam" --stats 2> "$data/beam.stats"
  read -r bw br < "$data/time.beam"
  local same recs shuf pairs
  beam_stats
  pairs=$(wc -l < "$data/beam-00000-of-00001")
  python3 - "$f" "$bs" "$recs" "$pairs" "$bw" "$br" "$shuf" "$same" <<'PY'
import sys, os
f, bs, recs, pairs, bw, br, shuf, same = sys.argv[1:]
recs, shuf = int(recs), int(shuf)
print(f"| {os.path.basename(f)} | {int(bs):,} | {recs:,} | {int(pairs):,} | {float(bw):.1f} | {int(br)/1024:.0f} | "
      f"{shuf/1e6:.2f} | {shuf/recs:.0f} | {same} |")
PY
}
if [[ " $parts " == *" hot "* ]]; then
  hn=${HOT_N:-20000}
  go run ./internal/testkit/cmd/gen sets -n "$hn" -min 1 -max 1 -universe "$hn" -dup 0.3 -seed 1 > "$data/one-$hn.txt"
  awk '{ print $0 " 999999999" }' "$data/one-$hn.txt" > "$data/shared-$hn.txt"
  echo "| data | --block-size | records | pairs | Prism wall s | Prism peak MiB | shuffled MB | shuffled bytes/record | same pairs as CLI |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for bs in 4096 128; do
    hot_row "$data/one-$hn.txt" "$bs"
    hot_row "$data/shared-$hn.txt" "$bs"
  done
fi
chain_row() { # n
  local n=$1 f="$data/chain-$1.txt"
  # Record i holds the tokens i..i+9: neighbours are at Jaccard 9/11, records
  # two apart at 8/12, so at 0.8 the records make one chain of n links,
  # written in a seeded random order.
  awk -v n="$n" 'BEGIN { srand(1); for (i = 0; i < n; i++) { l = i; for (j = 1; j < 10; j++) l = l " " i + j; printf "%.12f\t%s\n", rand(), l } }' |
    sort -n | cut -f2- > "$f"
  local cli
  cli=$("$data/simjoin" dedup -t 0.8 "$f" | wc -l)
  /usr/bin/time -f "%e %M" -o "$data/time.beam" "$beam" dedup --method exact -t 0.8 \
    --input "$f" --output "$data/kept" --stats 2> "$data/beam.stats"
  read -r bw br < "$data/time.beam"
  local shuf kept
  shuf=$(awk '/^shuffled bytes /{gsub(",","",$3); print $3}' "$data/beam.stats")
  kept=$(wc -l < "$data/kept-00000-of-00001")
  python3 - "$n" "$cli" "$kept" "$bw" "$br" "$shuf" <<'PY'
import sys
n, cli, kept, bw, br, shuf = sys.argv[1:]
n, shuf = int(n), int(shuf)
print(f"| {n:,} | {int(cli):,} | {int(kept):,} | {float(bw):.1f} | {int(br)/1024:.0f} | {shuf/1e6:.1f} | {shuf/n:.0f} |")
PY
}
if [[ " $parts " == *" chain "* ]]; then
  echo "| chain of | CLI kept | Prism kept | Prism wall s | Prism peak MiB | shuffled MB | shuffled bytes/record |"
  echo "|---|---|---|---|---|---|---|"
  for cn in ${CHAIN_NS:-25000 50000 100000}; do chain_row "$cn"; done
fi
