"""Rust `tokenizers` (Python binding) encoding the same text as the workbench's tokenizer worker, for bench/run.mjs.
Usage: python bench/tokenizer_rust.py <tokenizer.json> <text file> [runs]; prints {"ms": [...], "tokens": n, "version": v}."""
import json
import sys
import time

import tokenizers

tok = tokenizers.Tokenizer.from_file(sys.argv[1])
text = open(sys.argv[2], encoding="utf-8").read()
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
ms, n = [], 0
for _ in range(runs):
    t0 = time.perf_counter()
    n = len(tok.encode(text, add_special_tokens=False).ids)
    ms.append((time.perf_counter() - t0) * 1000)
print(json.dumps({"ms": ms, "tokens": n, "version": tokenizers.__version__}))
