#!/bin/sh
# The thread sweep on a lent many-core machine (benchmarks/README.md, "On a lent many-core
# machine"). Run from the repository root there, with .whl/ carried (make device-kit, here):
#
#     sh benchmarks/device_sweep.sh            # results in $OUT (the device tool's folder)
#
# The machine has Python 3.12 with numpy, fsspec, pluggy and tensorstore and no network: the
# carried wheels are installed beside them, with no dependency resolution. Settings, from the
# environment: THREADS (default 1, then the usable cores, then the powers of two between:
# the most telling counts first), ONLY (the workloads), ENGINES (default
# zarrforge,tensorstore), REPEAT (default 2), SCALE (default 1).
#
# Each thread count runs on its own and leaves sweep-N.json in the output folder, so a run
# stopped at the tool's time limit still returns the counts it finished; when all have
# finished they are merged (python -m benchmarks.sweep) into sweep.json, sweep.md and
# sweep.png, and the parts removed.
set -eu
site=/tmp/zarrforge-site
python3 -m pip install --quiet --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target "$site" .whl/*.whl
export PYTHONPATH="$site"
out="${OUT:-benchmarks/results/sweep-device}"
mkdir -p "$out"
python3 -c 'import os, importlib.metadata as m, zarrforge_batch_io as b
print(os.cpu_count(), "cores,", len(os.sched_getaffinity(0)), "usable;",
      *(f"{name} {m.version(name)}" for name in ("numpy", "tensorstore", "zarrforge", "numcodecs")),
      "; batch-io helper built:", b.AVAILABLE)'
cores=$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')
if [ -z "${THREADS:-}" ]; then
    THREADS="1 $cores"
    n=2
    while [ "$n" -lt "$cores" ]; do THREADS="$THREADS $n"; n=$((n * 2)); done
fi
parts=""
for n in $(echo "$THREADS" | tr ',' ' '); do
    python3 benchmarks/run.py --threads-sweep "$n" \
        --engines "${ENGINES:-zarrforge,tensorstore}" --only "${ONLY:-W1,W2,W3,W3r,W4,W5,W5r}" \
        --repeat "${REPEAT:-2}" --scale "${SCALE:-1}" --no-chart --out "/tmp/sweep-$n" >/dev/null \
        || echo "thread count $n: the sweep reported a failure (see /tmp/sweep-$n/sweep.md)"
    if [ -f "/tmp/sweep-$n/sweep.json" ]; then
        cp "/tmp/sweep-$n/sweep.json" "$out/sweep-$n.json"
        parts="$parts $out/sweep-$n.json"
        echo "thread count $n done"
    fi
done
[ -n "$parts" ] && python3 -m benchmarks.sweep "$out" $parts && rm -f $parts
