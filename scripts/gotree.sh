#!/usr/bin/env bash
# The article's experiment on this machine's Go source tree: every non-test
# .go file outside testdata with at least 50 five-token shingles is a record;
# the exact join at J >= 0.5, then MinHash-LSH with K = 48 (the article's
# classic scheme, 16-bit values) at 12x4 and 16x3, measured against it and
# against the S-curve's prediction. Prints the tables of docs/documents.md's "The
# article's experiment"; with DOCS=1 it also redraws docs/gotree-scurve.png and
# docs/gotree-circle.svg. Work files go to ${OUT:-/tmp/simjoin-gotree}.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
out=${OUT:-/tmp/simjoin-gotree}
mkdir -p "$out"
go build -o "$out/simjoin" ./cmd/simjoin
src=$(go env GOROOT)/src
flags=(--files --tokens go:5 --include '*.go' --exclude '*_test.go' --exclude '*/testdata/*' --min-tokens 50 -t 0.5)
lsh=(--perm 48 --minhash classic --bits 16)
cd "$src" # ids are paths relative to GOROOT/src

"$out/simjoin" join "${flags[@]}" --method exact --stats-json "$out/exact.json" . > "$out/exact.tsv"
for shape in 12x4 16x3; do
  "$out/simjoin" join "${flags[@]}" --method lsh --lsh "$shape" "${lsh[@]}" \
    --stats-json "$out/lsh-$shape.json" . > "$out/lsh-$shape.tsv"
done
figs=()
if [ "${DOCS:-0}" = 1 ]; then
  figs=(--scurve "$repo/docs/gotree-scurve.png" --scurve "$out/gotree-scurve.svg" --circle "$repo/docs/gotree-circle.svg")
fi
"$out/simjoin" plot "${flags[@]}" --method lsh "${lsh[@]}" --shapes 12x4,16x3 --seeds "${SEEDS:-10}" \
  --stats-json "$out/plot.json" "${figs[@]}" . > "$out/plot.txt"

python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
ex = json.load(open(f"{out}/exact.json"))
f = ex["sections"]["files"]
ph = {p["name"]: p["wall_s"] for p in ex["phases"]}
print(f"files: {f['listed']:,} listed, {f['selected']:,} selected (non-test .go outside testdata), "
      f"{f['below_min']:,} below {f['min_tokens']} shingles, {f['records']:,} records, {f['bytes']/2**20:.1f} MiB")
print(f"shingles: {ex['set_tokens']:,} (distinct per file, summed), vocabulary {ex['vocabulary']:,}")
print(f"exact pairs at J >= 0.5: {ex['results']:,}")
print()
plot = {s["shape"]: s for s in json.load(open(f"{out}/plot.json"))["sections"]["plot"]}
seeds = plot["12x4"]["seeds"]
print(f"| run (seed 0) | candidates | pairs found | recall | over {seeds} seeds: candidates | recall (min-max) | S-curve predicts: candidates | recall | join phase s | whole run s |")
print("|---|---|---|---|---|---|---|---|---|---|")
total = sum(ph.values())
print(f"| exact (AllPairs + PPJoin) | {ex['exact']['candidates']:,} | {ex['results']:,} | 1 | | | | | {ph['join']:.2f} | {total:.2f} |")
for shape in ("12x4", "16x3"):
    st = json.load(open(f"{out}/lsh-{shape}.json"))
    l = st["sections"]["lsh"]
    p = plot[shape]
    lph = {q["name"]: q["wall_s"] for q in st["phases"]}
    print(f"| LSH {shape}, K = 48 | {l['candidates']:,} | {st['results']:,} | {st['results']/ex['results']:.3f} | "
          f"{p['candidates']:,.0f} | {p['recall']:.3f} ({p['recall_min']:.3f}-{p['recall_max']:.3f}) | "
          f"{p['predicted_candidates']:,.0f} | {p['predicted_recall']:.3f} | {lph['join']:.2f} | {sum(lph.values()):.2f} |")
print()
print("phases of the exact run (s): " + ", ".join(f"{k} {v:.2f}" for k, v in ph.items()))
PY
echo
echo "notable pairs (exact similarity):"
grep -E $'^(cmd/gofmt/internal.go\tgo/format/internal.go|bytes/reader.go\tstrings/reader.go|bytes/iter.go\tstrings/iter.go)\t' "$out/exact.tsv" || true
echo "go/types <-> cmd/compile/internal/types2 file pairs at J >= 0.5: $(grep -cE $'^cmd/compile/internal/types2/[^\t]*\tgo/types/|^go/types/[^\t]*\tcmd/compile/internal/types2/' "$out/exact.tsv" || true)"
echo
sed -n '1,200p' "$out/plot.txt"
