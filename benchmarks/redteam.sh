#!/usr/bin/env bash
# The red-team cases of issue #20, replayed: each must end with one line on stderr and exit 2 (130 for Ctrl-C),
# or with results identical to a clean run, within 5 s and 1 GB before its error.
# Usage: benchmarks/redteam.sh [path/to/simulate]   (default: .venv/bin/simulate)
set -u
SIM=$(realpath "${1:-.venv/bin/simulate}")
PY=$(dirname "$SIM")/python
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
FAST=(pantolino -p keep-jokers -n 200000 --chunk-size 20000 --seed 7 --jobs 1 --json)
failures=0

# case NAME EXPECT CMD...: EXPECT is "error" (exit 2, one stderr line) or "interrupt" (exit 130, one line)
case_() {
    local name=$1 expect=$2
    shift 2
    /usr/bin/time -f "%e %M" -o time.txt "$@" >out.txt 2>err.txt
    local code=$? lines secs mb verdict=ok
    lines=$(wc -l <err.txt)
    read -r secs kb < <(tail -1 time.txt)
    mb=$((kb / 1024))
    local want=2
    [ "$expect" = interrupt ] && want=130
    if [ "$code" != "$want" ] || [ "$lines" != 1 ] || [ "${secs%.*}" -ge 5 ] || [ "$mb" -ge 1024 ]; then
        verdict=FAIL
        failures=$((failures + 1))
    fi
    printf '%-4s %-44s exit %3s  %5ss %5s MB  %s\n' "$verdict" "$name" "$code" "$secs" "$mb" "$(head -c 150 err.txt)"
}

# same NAME FILE1 FILE2: the two JSON results agree (timing and folder aside)
same() {
    if "$PY" - "$2" "$3" <<'EOF'; then
import json, sys
a, b = (json.loads(open(p).read()) for p in sys.argv[1:])
for d in (a, b):
    d.pop("elapsed_s"), d.pop("run_dir")
sys.exit(a != b)
EOF
        printf '%-4s %-44s results identical to a clean run\n' ok "$1"
    else
        printf '%-4s %-44s results DIFFER from a clean run\n' FAIL "$1"
        failures=$((failures + 1))
    fi
}

"$SIM" "${FAST[@]}" --out clean >clean.json

echo "== 1. silent wrong results"
"$SIM" "${FAST[@]}" --out busy >busy.json 2>/dev/null &
first=$!
until ls busy/chunks/*.ckpt >/dev/null 2>&1; do sleep 0.02; done
case_ "second process, other seed, same --out" error "$SIM" "${FAST[@]}" --seed 8 --out busy
wait $first
same "the first process's results" clean.json busy.json
rm busy/checkpoint.json
case_ "checkpoint.json deleted, other seed" error "$SIM" "${FAST[@]}" --seed 8 --out busy
cp -r clean copied && cp copied/chunks/chunk-000000-20000.ckpt copied/chunks/chunk-000003-20000.ckpt
"$SIM" "${FAST[@]}" --out copied >copied.json 2>copied.err
same "chunk copied over another ($(cat copied.err))" clean.json copied.json

echo "== 2. unbounded work before validation"
printf '[study]\ngame = "pantolino"\nn = 9223372036854775807\n\n[[arm]]\npolicy = "greedy"\n' >huge.toml
case_ "-n 99999999999999999999" error "$SIM" pantolino -n 99999999999999999999 --out x
case_ "-n 1e12" error "$SIM" pantolino -n 1e12 --out x
case_ "-n 1e18" error "$SIM" pantolino -n 1e18 --out x
case_ "tournament -n 1e18" error "$SIM" tournament pantolino --policies greedy,random -n 1e18 --out x
case_ "sweep -n 1e12" error "$SIM" sweep pantolino --set rolls=1,2 -n 1e12 --out x
case_ "report -n 1e12" error "$SIM" report pantolino -n 1e12 --out x.pdf
case_ "study n = 9223372036854775807" error "$SIM" experiment huge.toml --out x
case_ "--jobs 10000" error "$SIM" pantolino -n 1e5 --jobs 10000 --out x
case_ "--jobs 10000 --backend dask" error "$SIM" pantolino -n 1e5 --jobs 10000 --backend dask --out x
case_ "--jobs 0" error "$SIM" pantolino -n 1e5 --jobs 0 --out x
case_ "--players 99999999999999999999" error "$SIM" pantolino --players 99999999999999999999 --out x
case_ "--players 1000000000" error "$SIM" pantolino --players 1000000000 --out x
case_ "--chunk-size 99999999999" error "$SIM" pantolino -n 1e11 --chunk-size 99999999999 --out x

echo "== 3. outputs that disagree (a write fails while replacing a finished folder)"
"$SIM" "${FAST[@]}" --out full >/dev/null
before=$(md5sum full/*.* | md5sum)
case_ "rerun with larger -n, files over 20 KB fail" error \
    bash -c "trap '' XFSZ; ulimit -f 20; exec \"$SIM\" ${FAST[*]} -n 400000 --out full"
if [ "$(md5sum full/*.* | md5sum)" = "$before" ]; then
    printf '%-4s %-44s previous outputs intact\n' ok "after the failed rewrite"
else
    printf '%-4s %-44s outputs CHANGED\n' FAIL "after the failed rewrite"
    failures=$((failures + 1))
fi

echo "== 4. validation gaps"
SOLO=(--set faces=line,surrounded,adjacent,majority)
printf '[study]\ngame = "panots"\nn = 10\n\n[[arm]]\npolicy = "greedy"\nplayers = 1\nset = { faces = "line,surrounded,adjacent,majority" }\n' >solo.toml
case_ "paleolino cave_weights=1e308,1e308" error "$SIM" paleolino --set cave_weights=1e308,1e308 --out x
case_ "panots solo majority: simulate" error "$SIM" panots --players 1 "${SOLO[@]}" -n 10 --out x
case_ "panots solo majority: experiment" error "$SIM" experiment solo.toml --out x
case_ "panots solo majority: sweep" error "$SIM" sweep panots --players 1 "${SOLO[@]}" --set cards_per_player=3,4 -n 10 --out x
case_ "panots solo majority: report" error "$SIM" report solo.toml -n 10 --out x.pdf

echo "== 5. misleading recovery"
cp -r clean trunc && head -c 30 clean/checkpoint.json >trunc/checkpoint.json
"$SIM" "${FAST[@]}" --out trunc >trunc.json 2>trunc.err
same "truncated checkpoint.json ($(grep -c . trunc.err) stderr lines)" clean.json trunc.json
"$SIM" "${FAST[@]}" --save-games --out games >games.json
printf 'garbage' | dd of=games/games/chunk-000002.parquet bs=1 seek=100 conv=notrunc status=none
"$SIM" "${FAST[@]}" --save-games --out games >games2.json 2>games.err
same "corrupt games part ($(cat games.err))" games.json games2.json
"$SIM" "${FAST[@]}" -n 190000 --out resize >/dev/null
"$SIM" "${FAST[@]}" --out resize >resize.json 2>resize.err
same "last chunk changes size ($(grep -c . resize.err) warnings)" clean.json resize.json

echo "== 6. rough edges"
case_ "Ctrl-C after 0.3 s" interrupt timeout --preserve-status -s INT 0.3 "$SIM" pantolino -n 1e6 --out ctrlc
case_ "Ctrl-C after 0.3 s, dask" interrupt timeout --preserve-status -s INT 0.3 "$SIM" pantolino -n 1e6 --backend dask --out ctrlc2
case_ "--players -5" error "$SIM" pantolino --players -5 --out x
case_ "--out ''" error "$SIM" pantolino -n 100 --out ''
case_ "variant and --set of the same knob" error "$SIM" pantolino --variant escaping-boots --set escaping_boots=false --out x
"$SIM" pantolino -n 1e7 --jobs 2 --quiet --out killed &
victim=$!
until ls killed/chunks/*.ckpt >/dev/null 2>&1; do sleep 0.05; done
workers=$(pgrep -P $victim | tr '\n' ' ')
kill -KILL $victim
sleep 1
alive=$(for p in $workers; do ps -o pid= -o stat= -p "$p" | grep -v Z; done | wc -l)
printf '%-4s %-44s %s of %s children alive 1 s after SIGKILL\n' "$([ "$alive" = 0 ] && echo ok || echo FAIL)" \
    "SIGKILL simulate --jobs 2" "$alive" "$(wc -w <<<"$workers")"

echo "== 7. run.json records what reproduces a run"
"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); print("ok   seed", r["seed"], "chunk_size", r["chunk_size"], "|", r["reproduce"])' clean/run.json

echo "failures: $failures"
exit $((failures > 0))
