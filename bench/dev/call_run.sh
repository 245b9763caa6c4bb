# Sourced by the device calls' scripts (bench/dev/call38.sh to call41.sh) for their run step, on the
# GPU machine: the libraries the build machine carried over (.devlib), OUT's log folder L, the
# prebuilt P, LIMIT seconds (the script's default unless set), left() (seconds still in LIMIT), and a
# line naming the GPU and nvcc.
#   . bench/dev/call_run.sh NAME OUT DEFAULT_LIMIT
export LD_LIBRARY_PATH=$PWD/.devlib:${LD_LIBRARY_PATH:-}
export CPATH=$PWD/.devlib/include${CPATH:+:$CPATH} LIBRARY_PATH=$PWD/.devlib${LIBRARY_PATH:+:$LIBRARY_PATH}
OUT=${2:?usage: bench/dev/$1.sh run OUT}
mkdir -p "$OUT/l"
LIMIT=${LIMIT:-$3} P=.pre L=$OUT/l
left() { echo $((LIMIT - SECONDS)); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nvcc --version | tail -1
