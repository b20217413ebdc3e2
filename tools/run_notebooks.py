#!/usr/bin/env python
"""Run the notebooks top to bottom in a real Jupyter kernel, as a reader does.

`nbdev-test` runs the cells in-process with `IN_TEST` set; this runs the same cells (the cells flagged with
`tst_flags`, e.g. `#| slow`, are left out exactly as `nbdev-test` leaves them out) in a fresh `python3`
kernel per notebook, from the notebook's folder, so that a cell relying on test-only state, a missing import
or an output that breaks rendering is caught. Prints one line per notebook and ends with `N passed, M failed`.

    python tools/run_notebooks.py                 # every notebook in nbs/
    python tools/run_notebooks.py nbs/00_core.ipynb --flags slow   # one notebook, slow cells included
"""
import argparse, json, os, shutil, sys, tempfile, time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
import nbformat
from jupyter_client import KernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from nbdev.config import get_config
from nbdev.test import nb_test_cells

MAX_OUTPUT = 1_000_000   # bytes: a bigger output is too big for GitHub's and the docs site's renderers

def output_problems(nb) -> list:
    "What in an executed `nb` would break rendering: an invalid notebook, or an output over `MAX_OUTPUT` bytes"
    try: nbformat.validate(nb)
    except nbformat.ValidationError as e: return [f'invalid notebook after execution: {e.message}']
    return [f'cell {c.id}: an output of {n:,} bytes (over {MAX_OUTPUT:,}); make it smaller or flag the cell slow'
            for c in nb.cells if c.cell_type == 'code'
            for n in (len(json.dumps(o)) for o in c.outputs) if n > MAX_OUTPUT]

def code_size(path: Path) -> int:
    "Characters of code in the notebook at `path`: a rough guide to how long it runs"
    return sum(len(c.source) for c in nbformat.read(path, as_version=4).cells if c.cell_type == 'code')

def reader_env(n_workers: int = 1) -> dict:
    "The environment of a reader's kernel: no `IN_TEST`, and the cores shared between the kernels running at once"
    env = {k: v for k, v in os.environ.items() if k != 'IN_TEST'}
    env.setdefault('OMP_NUM_THREADS', str(max(1, (os.cpu_count() or 1) // n_workers)))   # torch in two kernels, two threads each, on
    return env                                                                         # two cores: small updates run up to 100x slower

def kernel_manager(folder: str) -> KernelManager:
    "A `python3` kernel that talks over Unix sockets in `folder`"
    return KernelManager(kernel_name='python3', transport='ipc', ip=os.path.join(folder, 'k'))   # TCP ports, picked in two
                                                        # processes at once, can collide: a kernel then dies before it answers

def run_notebook(path: Path, skip_flags: list, timeout: int, n_workers: int = 1) -> tuple:
    "Execute the cells of `path` that `nbdev-test` would run, in a fresh kernel; returns (path, seconds, problems)"
    nb, start = nbformat.read(path, as_version=4), time.time()
    keep = {c.id for c in nb_test_cells(path, skip_flags=skip_flags)}
    nb.cells = [c for c in nb.cells if c.cell_type != 'code' or c.id in keep]
    folder = tempfile.mkdtemp(prefix='rlnb-kernel-')
    client = NotebookClient(nb, km=kernel_manager(folder), timeout=timeout, resources={'metadata': {'path': str(path.parent)}},
                            extra_arguments=['--IPKernelApp.log_level=ERROR'])
    try: client.execute(env=reader_env(n_workers))
    except CellExecutionError as e: return path, time.time() - start, [str(e)]
    except (CellTimeoutError, DeadKernelError, RuntimeError) as e: return path, time.time() - start, [f'{type(e).__name__}: {e}']
    finally: shutil.rmtree(folder, ignore_errors=True)
    return path, time.time() - start, output_problems(nb)

def main(argv=None) -> int:
    cfg = get_config()
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('paths', nargs='*', type=Path, help='notebooks to run (default: every notebook in nbs/)')
    p.add_argument('--flags', nargs='*', default=[], help='flags of cells to run after all, as nbdev-test --flags')
    p.add_argument('--n-workers', type=int, default=2, help='notebooks run at once')
    p.add_argument('--timeout', type=int, default=int(cfg.get('cell_timeout', 600)), help='seconds per cell')
    a = p.parse_args(argv)
    paths = a.paths or sorted(q for q in Path(cfg.nbs_path).glob('*.ipynb') if not q.name.startswith(('_', '.')))
    skip = [f for f in str(cfg.tst_flags).split() if f not in a.flags]
    failed = 0
    with ProcessPoolExecutor(a.n_workers) as pool:   # the biggest notebooks first, so that no long one starts last
        jobs = {pool.submit(run_notebook, p, skip, a.timeout, a.n_workers): p for p in sorted(paths, key=code_size, reverse=True)}
        for job in as_completed(jobs):
            try: path, secs, problems = job.result()
            except Exception as e: path, secs, problems = jobs[job], 0, [f'the runner failed: {type(e).__name__}: {e}']   # one
                                                                                                     # notebook, not the rest
            failed += bool(problems)
            print(f"{'FAIL' if problems else 'ok  '} {path.name} ({secs:.0f} s)", flush=True)
            for msg in problems: print('     ' + msg.replace('\n', '\n     '), flush=True)
    print(f'{len(paths) - failed} passed, {failed} failed')
    return int(failed > 0)

if __name__ == '__main__': sys.exit(main())
