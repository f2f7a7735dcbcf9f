"""Outside CI: does a dataset folder the workbench published for the Hugging Face Hub load the way a Hub user loads it?

For every configuration its README.md card names, `datasets.load_dataset(DIR, <config>)` must give each split the rows
pyarrow reads from the files the card's `data_files` glob names, with the same values of every column (hive folder
names such as `data_source=__HIVE_DEFAULT_PARTITION__` must not change a value); and every file under `sessions/` must
follow the Session Trace Simple Format's documented shape (a header `{type: "session", harness, id}`, then
`{type: "message", message: {role, content, …}}` lines).

Usage: python scripts/trainer-check/hub-dataset-check.py DIR   (DIR from `agentworld export --hub-dataset DIR` or an
unzipped `workbench.exportHubDataset` zip). Needs only datasets, pyarrow and pyyaml (see requirements-hub.txt).
"""
import glob
import json
import os
import sys

import datasets
import pyarrow.parquet as pq
import yaml

root = sys.argv[1] if len(sys.argv) > 1 else "/tmp/aw-hub-dataset"
failures = []


def fail(msg):
    failures.append(msg)
    print(f"- FAILED {msg}", flush=True)


def normalize(v):
    """Values as plain JSON-able data, so datasets' and pyarrow's rows compare."""
    if isinstance(v, dict):
        return {k: normalize(x) for k, x in sorted(v.items())}
    if isinstance(v, (list, tuple)):
        return [normalize(x) for x in v]
    if hasattr(v, "isoformat"):
        return v.isoformat()
    return v


text = open(os.path.join(root, "README.md"), encoding="utf-8").read()
if not text.startswith("---\n"):
    sys.exit("README.md has no YAML header")
meta = yaml.safe_load(text.split("---\n")[1])
print(f"## {root}: datasets {datasets.__version__}, card license {meta.get('license')}, tags {meta.get('tags')}, size {meta.get('size_categories')}\n")

for cfg in meta["configs"]:
    name = cfg["config_name"]
    try:
        loaded = datasets.load_dataset(root, name)
    except Exception as e:  # noqa: BLE001 - every failure is reported, the others still checked
        fail(f"{name}: load_dataset raised {type(e).__name__}: {str(e).splitlines()[0][:300]}")
        continue
    for df in cfg["data_files"]:
        split, pattern = df["split"], df["path"]
        files = sorted(glob.glob(os.path.join(root, pattern), recursive=True))
        table = pq.ParquetDataset(files, partitioning=None).read() if files else None
        want = table.num_rows if table is not None else 0
        got = loaded[split].num_rows if split in loaded else None
        ok = got == want
        print(f"- {name}/{split}: load_dataset {got} rows, pyarrow {want} rows from {len(files)} file(s) ({pattern})")
        if not ok:
            fail(f"{name}/{split}: load_dataset gave {got} rows, the files hold {want}")
            continue
        a = sorted(json.dumps(normalize(r), sort_keys=True, default=str) for r in loaded[split].to_list())
        b = sorted(json.dumps(normalize(r), sort_keys=True, default=str) for r in table.to_pylist())
        if a != b:
            diff = next(i for i, (x, y) in enumerate(zip(a, b)) if x != y)
            fail(f"{name}/{split}: rows differ from the files' (first: {a[diff][:200]} vs {b[diff][:200]})")
    extra = set(loaded.keys()) - {df["split"] for df in cfg["data_files"]}
    if extra:
        fail(f"{name}: load_dataset made splits the card does not name: {sorted(extra)}")

sessions = sorted(glob.glob(os.path.join(root, "sessions", "*.jsonl")))
bad = 0
for path in sessions:
    lines = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    head, msgs = lines[0], lines[1:]
    problems = []
    if head.get("type") != "session" or not isinstance(head.get("harness"), str) or not isinstance(head.get("id"), str):
        problems.append("the first line is not a session header")
    for m in msgs:
        msg = m.get("message")
        if m.get("type") != "message" or not isinstance(msg, dict) or msg.get("role") not in ("system", "user", "assistant", "tool") or not isinstance(msg.get("content"), str):
            problems.append(f"not a message line: {json.dumps(m)[:120]}")
            break
    if not msgs:
        problems.append("no messages")
    if problems:
        bad += 1
        fail(f"{os.path.basename(path)}: {problems[0]}")
print(f"- sessions: {len(sessions)} STS file(s), {len(sessions) - bad} follow the format")

print("\n## result\n")
print("\n".join(f"- {f}" for f in failures) or "- every configuration loads with its card's splits and rows; every session follows STS")
sys.exit(1 if failures else 0)
