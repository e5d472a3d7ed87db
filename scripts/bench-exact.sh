#!/usr/bin/env bash
# Regenerates the exact-join figures of BENCHMARKS.md: the literature's 1M-set
# collection at t = 0.9, 0.8, 0.7, 0.5 on one worker and on all cores, and the
# dense collection of long sets at t = 0.5. Data goes to ${DATA:-/tmp/simjoin-bench}.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${DATA:-/tmp/simjoin-bench}
mkdir -p "$data"
go build -o "$data/simjoin" ./cmd/simjoin
[ -s "$data/zipf1m.txt" ] || go run ./internal/testkit/cmd/gen sets -n 1000000 -min 10 -max 50 \
  -universe 1000000 -zipf 1 -dup 0.3 -replace 0.1 -seed 1 > "$data/zipf1m.txt"
[ -s "$data/dense20k.txt" ] || go run ./internal/testkit/cmd/gen sets -n 20000 -min 290 -max 310 \
  -universe 20000 -seed 2 > "$data/dense20k.txt"
run() { # file threshold workers
  /usr/bin/time -f "%e %M" -o "$data/time" "$data/simjoin" join --method exact -t "$2" -j "$3" \
    --stats-json "$data/stats.json" "$1" > /dev/null
  read -r wall rss < "$data/time"
  python3 - "$data/stats.json" "$1" "$2" "$3" "$wall" "$rss" <<'PY'
import json, sys, os
st = json.load(open(sys.argv[1]))
f, t, j, wall, rss = sys.argv[2:]
ph = {p["name"]: p["wall_s"] for p in st["phases"]}
ex = st["exact"]
joinphase = ex["index_s"] + ex["join_s"]  # index, probe, verify, emit
print(f"| {os.path.basename(f)} | {t} | {j} | {ex['candidates']:,} | {st['results']:,} | "
      f"{joinphase:.2f} | {ph['read']+ph['order']:.2f} | {float(wall):.2f} | "
      f"{int(rss)/1024:.0f} | {int(rss)*1024/st['set_tokens']:.1f} |")
PY
}
echo "| data | t | workers | candidates | results | join phase s | read+order s | whole CLI s | peak RSS MiB | bytes/token |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for t in 0.9 0.8 0.7 0.5; do
  for j in 1 2; do run "$data/zipf1m.txt" "$t" "$j"; done
done
for j in 1 2; do run "$data/dense20k.txt" 0.5 "$j"; done
