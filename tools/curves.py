#!/usr/bin/env python
"""Draw each algorithm page's learning curves from the committed results of `bench/learn.py`, and put them on the page.

Every algorithm notebook (10a-13) shows, right under its "When to use it" paragraph, the evaluation curves of the
presets it trains (the `rlnb train NAME` commands of that paragraph): one panel per preset, one line per seed. They come
from a real run, `python bench/learn.py --seeds 5 --save bench/results/learn.json`, not from a cell that trains when the
page is built. This script draws `nbs/images/curves-{number}.png` and writes the Markdown cell that shows it, with the
seeds, the budget and the command in its caption; `98_notebooks` checks the cells match what it would write.

    python tools/curves.py                                  # redraw the images and rewrite the cells
    python tools/curves.py --results bench/results/learn.json
"""
import argparse, json, re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT/'bench'/'results'/'learn.json'

def algorithm_notebooks(nbs=ROOT/'nbs') -> list:
    "The algorithm notebooks: 10a-13 (the policy-gradient core, 11_, is what they share)"
    return sorted(p for p in Path(nbs).glob('1[0-3]*.ipynb') if not p.name.startswith('11_'))

def markdown_cells(nb: dict) -> list: return [c for c in nb['cells'] if c['cell_type'] == 'markdown']
def source(c) -> str: return ''.join(c['source'])

def presets_of(path: Path) -> list:
    "The presets a page trains: its intro's `rlnb train NAME` commands, in order, each once"
    intro = source(markdown_cells(json.loads(Path(path).read_text()))[2])
    names = re.findall(r'^rlnb train (\w+)', intro, re.M)
    return list(dict.fromkeys(names))

def image_name(path: Path) -> str: return f"images/curves-{Path(path).name.split('_')[0]}.png"

def caption(rows: list, meta: dict) -> str:
    "What the image shows and where it comes from, for rows of bench/learn.py's result"
    envs = sorted({r['env'] for r in rows})
    seeds = rows[0]['seeds']
    budgets = ', '.join(f"{r['algo']} {r['budget']:,} steps" for r in rows)
    stop = (f'each run stopped at its first evaluation at or above the dashed threshold or at its budget ({budgets})'
            if all(r.get('threshold') is not None for r in rows) else f'each run trained its whole budget ({budgets})')
    names = [r['algo'] for r in rows]
    names = ', '.join(names[:-1]) + ' and ' + names[-1] if len(names) > 1 else names[0]
    return (f"{names} on {', '.join(envs)}: the mean return of the evaluation episodes over env steps, "
            f"seeds 0-{seeds - 1}, one line each; {stop}. Measured {meta['date']} on {meta['cores']} cores by `{meta['command']}`")

def measured_by(results: dict, names: list) -> dict:
    "The date, cores and command that measured the rows `names`: the latest rerun's (`reruns` in the file; its own cores where it names them) that covered them all, else the file's"
    rerun = next((x for x in reversed(results.get('reruns', [])) if set(names) <= set(x['algos'])), results)
    return dict(date=rerun['date'], cores=rerun.get('cores', results['cores']), command=rerun['command'])

def cell_text(path: Path, results: dict) -> str:
    "The Markdown of page `path`'s curves cell"
    rows = [r for n in presets_of(path) for r in results['result'] if r['algo'] == n]
    return f"![{caption(rows, measured_by(results, [r['algo'] for r in rows]))}]({image_name(path)})"

def draw(rows: list, out: Path):
    "One panel per preset row: each seed's evaluation curve and the preset's threshold"
    import matplotlib; matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(rows), figsize=(4.4 * len(rows), 3.0), squeeze=False)
    for ax, r in zip(axes[0], rows):
        for s, curve in enumerate(r['curves']):
            if curve: ax.plot(*zip(*curve), '.-', lw=1, ms=3, label=f'seed {s}')
        if r.get('threshold') is not None: ax.axhline(r['threshold'], ls='--', c='gray', lw=1)
        solved = f": {r['solved']}/{r['seeds']} solved" if r.get('threshold') is not None else ''
        ax.set_title(f"{r['algo']} on {r['env']}{solved}", fontsize=9)
        ax.set_xlabel('env step'); ax.set_ylabel('evaluation mean return'); ax.tick_params(labelsize=8)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout(); fig.savefig(out, dpi=80); plt.close(fig)

def main(results_path=RESULTS):
    results = json.loads(Path(results_path).read_text())
    for p in algorithm_notebooks():
        names = presets_of(p)
        rows = [r for n in names for r in results['result'] if r['algo'] == n]
        missing = set(names) - {r['algo'] for r in rows}
        if missing: raise SystemExit(f'{p.name} trains {sorted(missing)}, which {results_path} lacks: run bench/learn.py with them')
        draw(rows, ROOT/'nbs'/image_name(p))
        nb = json.loads(p.read_text())
        md = markdown_cells(nb)
        text = cell_text(p, results)
        if source(md[3]).startswith('![') and 'images/curves-' in source(md[3]): md[3]['source'] = text.splitlines(keepends=True)
        else:
            i = nb['cells'].index(md[2]) + 1
            nb['cells'].insert(i, dict(cell_type='markdown', id=f"curves{p.name.split('_')[0]}", metadata={}, source=text.splitlines(keepends=True)))
        p.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + '\n')
        print(f'{p.name}: {image_name(p)} ({", ".join(names)})')

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--results', default=str(RESULTS))
    main(ap.parse_args().results)
