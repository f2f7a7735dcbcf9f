"""Not in CI: run the Ray example in local mode on the test fixtures and check that its training layouts equal the
CLI's row for row, and that polars and Hugging Face `datasets` read the Parquet output as one dataset.

    python examples/ray/check_fixtures.py [--shards 2]      (docs/scale-out.md has a recorded run)
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


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument('--shards', type=int, default=2)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix='aw-ray-check-')
    ray_out, cli_out, pool = os.path.join(tmp, 'ray'), os.path.join(tmp, 'cli'), os.path.join(tmp, 'pool.duckdb')

    t0 = time.time()
    subprocess.run([sys.executable, os.path.join(HERE, 'pipeline.py'), FIXTURES, ray_out, '--shards', str(args.shards)], check=True)
    print(f'ray pipeline: {time.time() - t0:.1f} s')

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
