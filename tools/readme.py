#!/usr/bin/env python
"""Write README.md from nbs/index.ipynb, as `nbdev-readme` would where quarto is not installed.

Markdown cells are copied, visible code cells become fenced Python blocks, hidden cells (`#| hide`) are left
out, and image paths are made relative to the repository's root. `98_notebooks` checks README.md against it.

    python tools/readme.py          # rewrite README.md
"""
import json, re, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

def readme(index: Path = ROOT/'nbs'/'index.ipynb') -> str:
    "The text of README.md for the notebook `index`"
    parts = []
    for c in json.loads(index.read_text())['cells']:
        s = ''.join(c['source']).strip('\n')
        if c['cell_type'] == 'markdown': parts.append(re.sub(r'\]\((images/)', r'](nbs/\1', s))
        elif c['cell_type'] == 'code' and not re.match(r'#\|\s*hide\b', s): parts.append(f'```python\n{s}\n```')
    return '\n\n'.join(parts) + '\n'

if __name__ == '__main__':
    (ROOT/'README.md').write_text(readme())
    sys.exit(0)
