"""Not in CI: run the Ray example in local mode on the test fixtures and check that its training layouts equal the
CLI's row for row, and that polars and Hugging Face `datasets` read the Parquet output as one dataset.

    python examples/ray/check_fixtures.py [--shards 2]      (docs/scale-out.md has a recorded run)
    python examples/ray/check_fixtures.py --shards 2 --no-ray   (the same steps without Ray's scheduler: the shard and
        merge functions the Ray tasks run, one after the other, and the same per-group DuckDB step over pyarrow groups)
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, '..', '..'))
CLI = ['node', os.path.join(REPO, 'bin', 'agentworld.mjs')]
FIXTURES = os.path.join(REPO, 'test', 'fixtures', 'formats')
LAYOUTS = ['sft', 'rl_steps', 'verl_prompts', 'dpo']


def rows(path: str) -> list:
    con = duckdb.connect()
    return sorted(r[0] for r in con.execute(f"SELECT to_json(t)::VARCHAR FROM read_parquet('{path}') t").fetchall())


def without_ray(out: str, shards: int) -> None:
    """pipeline.py's steps in this process: the shard imports, the merge, then per prompt group the layout SQL in DuckDB."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    sys.path.insert(0, HERE)
    import pipeline

    print('shards:', [pipeline.run_shard(FIXTURES, out, i, shards) for i in range(shards)])
    print('merged:', pipeline.run_merge(out))
    bundle = pipeline.write_layout_sql(out)
    steps = pq.read_table(os.path.join(out, 'merged'))
    for layout in LAYOUTS:
        run = pipeline.layout_fn(bundle, layout)
        # the groups Ray's groupby makes: one per prompt_uid (rows without one form a group of their own)
        groups = [steps.filter(pc.equal(steps['prompt_uid'], p)) for p in pc.unique(steps['prompt_uid']).to_pylist() if p is not None]
        groups += [g for g in [steps.filter(pc.is_null(steps['prompt_uid']))] if g.num_rows]
        parts = [run(g) for g in groups]
        os.makedirs(os.path.join(out, layout), exist_ok=True)
        for k, t in enumerate(p for p in parts if p.num_rows):
            pq.write_table(t, os.path.join(out, layout, f'part-{k}.parquet'))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument('--shards', type=int, default=2)
    ap.add_argument('--no-ray', action='store_true')
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix='aw-ray-check-')
    ray_out, cli_out, pool = os.path.join(tmp, 'ray'), os.path.join(tmp, 'cli'), os.path.join(tmp, 'pool.duckdb')

    t0 = time.time()
    if args.no_ray:
        without_ray(ray_out, args.shards)
    else:
        subprocess.run([sys.executable, os.path.join(HERE, 'pipeline.py'), FIXTURES, ray_out, '--shards', str(args.shards)], check=True)
    print(f'{"pipeline without ray" if args.no_ray else "ray pipeline"}: {time.time() - t0:.1f} s')

    t0 = time.time()
    subprocess.run(CLI + ['import', FIXTURES, '--pool', pool], stdout=subprocess.DEVNULL)  # exit 1: some fixtures make no step
    subprocess.run(CLI + ['export', '--pool', pool, '--layout', ','.join(LAYOUTS), '--out', cli_out], check=True, stdout=subprocess.DEVNULL)
    print(f'cli import + export: {time.time() - t0:.1f} s')

    ok = True
    for layout in LAYOUTS:
        a = rows(os.path.join(ray_out, layout, '*.parquet'))
        b = rows(os.path.join(cli_out, layout, '*.parquet'))
        same = a == b
        ok &= same
        print(f'{layout}: ray {len(a)} rows, cli {len(b)} rows: {"equal" if same else "DIFFERENT"}')
        if not same:
            for x in sorted(set(a) ^ set(b))[:3]:
                print('   only in', 'ray' if x in a else 'cli', x[:300])

    # the output as one dataset for polars and datasets
    import polars as pl
    from datasets import load_dataset

    for layout in LAYOUTS:
        files = sorted(glob.glob(os.path.join(ray_out, layout, '*.parquet')))
        n_pl = pl.scan_parquet(os.path.join(ray_out, layout, '*.parquet')).select(pl.len()).collect().item()
        n_ds = load_dataset('parquet', data_files=files, split='train').num_rows
        print(f'{layout}: {len(files)} part files; polars reads {n_pl} rows, datasets {n_ds}')
        ok &= n_pl == n_ds == len(rows(os.path.join(ray_out, layout, '*.parquet')))
    # the CLI's partitioned export too
    part = os.path.join(tmp, 'cli-part')
    subprocess.run(CLI + ['export', '--pool', pool, '--layout', 'rl_steps', '--partition-by', 'data_source', '--max-file-size', '1MB', '--out', part], check=True, stdout=subprocess.DEVNULL)
    files = sorted(glob.glob(os.path.join(part, '**', '*.parquet'), recursive=True))
    n_pl = pl.scan_parquet(files).select(pl.len()).collect().item()
    n_ds = load_dataset('parquet', data_files=files, split='train').num_rows
    n_cli = len(rows(os.path.join(cli_out, 'rl_steps', '*.parquet')))
    print(f'rl_steps partitioned by data_source: {len(files)} files; polars {n_pl} rows, datasets {n_ds}, unpartitioned {n_cli}')
    ok &= n_pl == n_ds == n_cli
    print('OK' if ok else 'MISMATCH', tmp)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
