#!/bin/sh
# The thread sweep on a lent many-core machine (benchmarks/README.md, "On a lent many-core
# machine"). Run from the repository root there, with .whl/ carried (make device-kit, here):
#
#     sh benchmarks/device_sweep.sh            # results in $OUT (the device tool's folder)
#
# The machine has Python 3.12 with numpy, fsspec, pluggy and tensorstore and no network: the
# carried wheels are installed beside them, with no dependency resolution. Settings, from the
# environment: THREADS (default auto: 1, 2, 4, ... cores), ONLY (the workloads), ENGINES
# (default zarrforge,tensorstore), REPEAT (default 2), SCALE (default 1).
set -eu
site=/tmp/zarrforge-site
python3 -m pip install --quiet --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target "$site" .whl/*.whl
export PYTHONPATH="$site"
out="${OUT:-benchmarks/results/sweep-device}"
python3 -c 'import os, importlib.metadata as m
print(os.cpu_count(), "cores;", *(f"{name} {m.version(name)}" for name in
      ("numpy", "tensorstore", "zarrforge", "numcodecs")))'
exec python3 benchmarks/run.py --threads-sweep "${THREADS:-auto}" \
    --engines "${ENGINES:-zarrforge,tensorstore}" --only "${ONLY:-W1,W2,W3,W3r,W4,W5,W5r}" \
    --repeat "${REPEAT:-2}" --scale "${SCALE:-1}" --out "$out"
