"""AgentWorld Workbench on Ray (issue 22; docs/scale-out.md).

1. A Ray task per shard runs the CLI: `agentworld import DATA --shard i/n --steps-out OUT/steps` — the page's own
   detection, normalizers and data contract, into one Parquet file per shard (written under a temporary name and
   renamed, so a retried task replaces its file and never adds rows twice).
2. One Ray task runs `agentworld merge OUT/steps/*.parquet --steps-out OUT/merged`: the shards' imports committed again
   into one pool in the order of the whole listing, through the pool's own import commit (decision 011: a trace split
   over files of two shards is joined, clashing trajectory ids kept apart), so the steps equal one run's row for row.
3. `agentworld layout-sql` writes the layouts' SQL (generated from src/export/layouts.ts, never copied by hand).
4. Ray Data: read_parquet(OUT/merged) -> groupby('prompt_uid').map_groups(...) where DuckDB runs that very SQL on
   each prompt group, -> write_parquet(OUT/<layout>).

Run from a checkout of the workbench (node and `npm ci` done on every node of the cluster):
    python examples/ray/pipeline.py DATA OUT --shards 8
"""
import argparse
import json
import os
import shutil
import subprocess
import tempfile

import duckdb
import pyarrow as pa
import ray

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
CLI = ['node', os.path.join(REPO, 'bin', 'agentworld.mjs')]
LAYOUTS = ['sft', 'rl_steps', 'verl_prompts', 'dpo']


def run_shard(data: str, out: str, i: int, n: int) -> dict:
    """One shard of the sorted listing through the CLI, into OUT/steps/steps-<i>-of-<n>.parquet."""
    with tempfile.TemporaryDirectory() as tmp:  # a fresh pool per attempt: a retry starts clean
        pool = os.path.join(tmp, 'shard.duckdb')
        r = subprocess.run(CLI + ['import', data, '--pool', pool, '--shard', f'{i}/{n}', '--steps-out', os.path.join(out, 'steps'), '--json'],
                           capture_output=True, text=True)
        if r.returncode not in (0, 1):  # 1: some file made no step (its rejects are in the report); anything else is a crash
            raise RuntimeError(f'shard {i}/{n}: {r.stderr}')
        report = json.loads(r.stdout)
        return {'shard': i, 'files': len(report['files']), 'added': report['added'], 'failed': report['failed']}


def run_merge(out: str) -> dict:
    """The shards' steps joined as one import of the listing would make them, into OUT/merged/steps-00000-of-00001.parquet."""
    with tempfile.TemporaryDirectory() as tmp:  # a fresh pool per attempt; the output file is replaced by rename
        r = subprocess.run(CLI + ['merge', os.path.join(out, 'steps', '*.parquet'), '--pool', os.path.join(tmp, 'merged.duckdb'),
                                  '--steps-out', os.path.join(out, 'merged'), '--json'], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f'merge: {r.stderr}')
        report = json.loads(r.stdout)
        return {'imports': report['imports'], 'steps': report['added'], 'joined_or_kept_apart': len(report['messages'])}


# a Ray task each (a task that fails is retried: a fresh pool, its output file replaced by rename)
import_shard = ray.remote(max_retries=3)(run_shard)
merge_shards = ray.remote(max_retries=3)(run_merge)


def write_layout_sql(out: str) -> dict:
    """The layouts' SQL for the merged steps (verl_prompts types the sources' JSON fields from them)."""
    bundle_path = os.path.join(out, 'layouts.json')
    subprocess.run(CLI + ['layout-sql', '--steps', os.path.join(out, 'merged', '*.parquet'), '--out', bundle_path], check=True)
    with open(bundle_path) as f:
        return json.load(f)


def layout_fn(bundle: dict, layout: str):
    sql = bundle['layouts'][layout]

    def run(group: pa.Table) -> pa.Table:
        con = duckdb.connect()
        for stmt in bundle['prelude']:
            con.execute(stmt)
        con.register('steps_in', group)
        con.execute(bundle['load'])
        return con.execute(sql).to_arrow_table()

    return run


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument('data')
    ap.add_argument('out')
    ap.add_argument('--shards', type=int, default=4)
    args = ap.parse_args()
    data, out = os.path.abspath(args.data), os.path.abspath(args.out)
    shutil.rmtree(out, ignore_errors=True)
    # local mode here (no dashboard: fewer processes on a small machine); under `ray job submit` this joins the cluster
    ray.init(include_dashboard=False)

    shards = ray.get([import_shard.remote(data, out, i, args.shards) for i in range(args.shards)])
    print('shards:', shards)

    print('merged:', ray.get(merge_shards.remote(out)))

    bundle = write_layout_sql(out)

    steps = ray.data.read_parquet(os.path.join(out, 'merged'))
    for layout in LAYOUTS:
        ds = steps.groupby('prompt_uid').map_groups(layout_fn(bundle, layout), batch_format='pyarrow')
        ds.write_parquet(os.path.join(out, layout))
        print(layout, ray.data.read_parquet(os.path.join(out, layout)).count(), 'rows')  # from the files' metadata, not a second run


if __name__ == '__main__':
    main()
