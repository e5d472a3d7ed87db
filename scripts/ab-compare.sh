#!/usr/bin/env bash
# Before and after in one run: OLD and NEW, two simjoin binaries, run in turn
# (OLD, NEW, OLD, NEW, ...) RUNS times on each workload; prints, for each
# workload and binary, the medians of the whole run's wall and CPU seconds,
# peak RSS and the phases' wall seconds from --stats-json, and NEW/OLD.
#
#   OLD=/tmp/simjoin-old NEW=/tmp/simjoin-new RUNS=5 scripts/ab-compare.sh
#   WORKLOADS="zipf-j1 pw-j1" ... scripts/ab-compare.sh
#
# Workloads (WORKLOADS, default all): zipf-j1, zipf-j2 (the 1M Zipf sets of
# scripts/bench-exact.sh, t = 0.9, --method exact), long-j1 (20,000 sets of
# 200-400 Zipf tokens, t = 0.5), pw-j1, pw-j2 (the generated 59,000
# passwords, character bigrams, t = 0.8), gotree-j2 (the Go tree from source,
# go:5, t = 0.5), lsh-j2 (the long sets through --method lsh); not run
# unless named: gotreeints-j2 (the same Go-tree sets written as integer
# lines by internal/testkit/cmd/ssjconv, numbered rare-first), gotreekeys-j1 and
# gotreekeys-j2 (the same sets with each shingle's 64-bit hash for its id, as
# scripts/cpp-compare.sh joins them: ssjconv -format keys) and zipfrs-j2 (an R-S join of the Zipf sets' first and last 500,000 lines,
# t = 0.9). Data goes to ${DATA:-/tmp/simjoin-ab}.
set -euo pipefail
: "${OLD:?OLD=path of the binary before}" "${NEW:?NEW=path of the binary after}"
cd "$(dirname "$0")/.."
data=$(mkdir -p "${DATA:-/tmp/simjoin-ab}" && cd "${DATA:-/tmp/simjoin-ab}" && pwd)
runs=${RUNS:-5}
[ -s "$data/zipf.txt" ] || go run ./internal/testkit/cmd/gen sets -n 1000000 -min 10 -max 50 \
  -universe 1000000 -zipf 1 -dup 0.3 -replace 0.1 -seed 1 > "$data/zipf.txt"
[ -s "$data/long.txt" ] || go run ./internal/testkit/cmd/gen sets -n 20000 -min 200 -max 400 \
  -universe 20000 -zipf 1 -dup 0.1 -replace 0.1 -seed 2 > "$data/long.txt"
[ -s "$data/pw.txt" ] || go run ./internal/testkit/cmd/pwgen -n 59000 -seed 1 > "$data/pw.txt"
gosrc=$(go env GOROOT)/src
case " ${WORKLOADS:-} " in
*" gotreeints-"*) [ -s "$data/gotree.txt" ] || go run ./internal/testkit/cmd/ssjconv -format text --files --tokens go:5 \
  --include '*.go' --exclude '*_test.go' --exclude '*/testdata/*' --min-tokens 50 "$gosrc" > "$data/gotree.txt" ;;
esac
case " ${WORKLOADS:-} " in
*" gotreekeys-"*) [ -s "$data/gotreekeys.txt" ] || go run ./internal/testkit/cmd/ssjconv -format keys --files --tokens go:5 \
  --include '*.go' --exclude '*_test.go' --exclude '*/testdata/*' --min-tokens 50 "$gosrc" > "$data/gotreekeys.txt" ;;
esac
case " ${WORKLOADS:-} " in
*" zipfrs-"*) [ -s "$data/zipf-r.txt" ] || { head -n 500000 "$data/zipf.txt" > "$data/zipf-r.txt"
  tail -n 500000 "$data/zipf.txt" > "$data/zipf-s.txt"; } ;;
esac

args() { # WORKLOAD: the join's arguments
  case $1 in
  zipf-j*) echo "join --method exact -t 0.9 -j ${1#zipf-j} $data/zipf.txt" ;;
  long-j*) echo "join --method exact -t 0.5 -j ${1#long-j} $data/long.txt" ;;
  lsh-j*) echo "join --method lsh -t 0.5 -j ${1#lsh-j} $data/long.txt" ;;
  pw-j*) echo "join --method exact --tokens qgram:2 -t 0.8 -j ${1#pw-j} $data/pw.txt" ;;
  gotreeints-j*) echo "join --method exact -t 0.5 -j ${1#gotreeints-j} $data/gotree.txt" ;;
  gotreekeys-j*) echo "join --method exact -t 0.5 -j ${1#gotreekeys-j} $data/gotreekeys.txt" ;;
  zipfrs-j*) echo "join --method exact -t 0.9 -j ${1#zipfrs-j} $data/zipf-r.txt --against $data/zipf-s.txt" ;;
  gotree-j*) echo "join --method exact --files --tokens go:5 --include *.go --exclude *_test.go --exclude */testdata/* --min-tokens 50 -t 0.5 -j ${1#gotree-j} $gosrc" ;;
  *) echo "$0: unknown workload $1" >&2; exit 2 ;;
  esac
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores" >&2
: > "$data/ab.tsv"
for w in ${WORKLOADS:-zipf-j1 zipf-j2 long-j1 pw-j1 pw-j2 gotree-j2 lsh-j2}; do
  read -ra a <<< "$(args "$w")"
  for ((i = 0; i < runs; i++)); do
    for side in old new; do
      bin=$OLD
      [ $side = new ] && bin=$NEW
      /usr/bin/time -f "%e %U %S %M" -o "$data/time" "$bin" "${a[@]}" --stats-json "$data/stats.json" > "$data/out"
      read -r wall user sys rss < "$data/time"
      python3 - "$data/stats.json" "$w" "$side" "$wall" "$user" "$sys" "$rss" "$(wc -l < "$data/out")" >> "$data/ab.tsv" <<'PY'
import json, sys
st = json.load(open(sys.argv[1]))
w, side, wall, user, sys_, rss, pairs = sys.argv[2:]
ph = ",".join(f"{p['name']}={p['wall_s']:.4f}" for p in st["phases"])
print(f"{w}\t{side}\t{wall}\t{float(user)+float(sys_):.3f}\t{rss}\t{pairs}\t{ph}")
PY
    done
  done
done
python3 - "$data/ab.tsv" <<'PY'
import sys, statistics as S
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
by = {}
for w, side, wall, cpu, rss, pairs, ph in rows:
    d = by.setdefault((w, side), {"wall": [], "cpu": [], "rss": [], "pairs": set(), "ph": {}})
    d["wall"].append(float(wall)); d["cpu"].append(float(cpu)); d["rss"].append(int(rss) / 1024)
    d["pairs"].add(pairs)
    for kv in ph.split(","):
        k, v = kv.split("=")
        d["ph"].setdefault(k, []).append(float(v))
print("| workload | binary | runs | pairs | whole wall s | whole CPU s | peak RSS MiB | phases (wall s) |")
print("|---|---|---|---|---|---|---|---|")
for w in dict.fromkeys(r[0] for r in rows):
    med = {}
    for side in ("old", "new"):
        d = by[(w, side)]
        med[side] = {k: S.median(d[k]) for k in ("wall", "cpu", "rss")}
        med[side]["ph"] = {k: S.median(v) for k, v in d["ph"].items()}
        phs = " ".join(f"{k} {v:.3f}" for k, v in med[side]["ph"].items())
        print(f"| {w} | {side} | {len(d['wall'])} | {','.join(sorted(d['pairs']))} | {med[side]['wall']:.3f} | "
              f"{med[side]['cpu']:.3f} | {med[side]['rss']:.0f} | {phs} |")
    o, n = med["old"], med["new"]
    phs = " ".join(f"{k} {n['ph'][k] / o['ph'][k]:.2f}x" for k in n["ph"] if k in o["ph"] and o["ph"][k] > 0.001)
    print(f"| {w} | new/old | | | {n['wall'] / o['wall']:.2f}x | {n['cpu'] / o['cpu']:.2f}x | "
          f"{n['rss'] / o['rss']:.2f}x | {phs} |")
PY
