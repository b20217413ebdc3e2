#!/usr/bin/env python
"""Preview the docs site where quarto cannot run, and check it in a real browser.

`nbdev-docs` is `nbdev-proc-nbs` (nbdev's processors: front matter, `show_doc` tables, hidden cells removed) followed by
quarto. Where quarto is missing, this renders the processed pages (`_proc/*.ipynb`) to HTML with nbconvert, into one
folder with an index and the site's sidebar as each page's navigation. With --check it opens every page in headless
chromium (Debian's `chromium` and `chromium-driver`, driven by selenium) and asserts what a reader must see: each page's
Colab badge, pointing at its own notebook; each algorithm page's learning-curve image, loaded; the `show_doc` entry (heading, signature with
its parameters' docments, docstring) of everything a page documents; the benchmarks page's tables and figures. It saves screenshots of the
index and of one algorithm page.

    nbdev-proc-nbs && python tools/preview_site.py            # writes _preview/index.html and a page per notebook
    python tools/preview_site.py --check                       # and checks them in headless chromium; screenshots in _preview/
"""
import argparse, json, re, shutil, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROC, OUT = ROOT/'_proc', ROOT/'_preview'
ALGORITHM = re.compile(r'^1[0-3][a-z]?_(?!agents\.policy_gradient\.core)')   # the algorithm pages (10a-13), not the PG core
REMOTE_SCRIPT = re.compile(r'<script[^>]*src="https?://[^"]*"[^>]*>\s*</script>')

def front_matter(nb) -> dict:
    "The `title` and `description` of a processed page (its first cell, the front matter nbdev made of the title cell)"
    import yaml
    c = nb.cells[0]
    m = re.match(r'---\n(.*?)\n---', c.source, re.S) if c.cell_type == 'raw' else None
    return yaml.safe_load(m.group(1)) if m else {}

def sidebar() -> list:
    "(section, [page names]) in the order of nbs/sidebar.yml"
    import yaml
    out = []
    for item in yaml.safe_load((ROOT/'nbs'/'sidebar.yml').read_text())['website']['sidebar']['contents']:
        if isinstance(item, dict): out.append((item.get('section', ''), [Path(p).stem for p in item['contents']]))
        else: out.append(('', [Path(item).stem]))
    return out

def for_html(nb, nav: str):
    "Processed page `nb` made ready for nbconvert: title on top, navigation, directives honoured, quarto's fenced divs dropped"
    import nbformat
    fm = front_matter(nb)
    cells = nb.cells[1:] if fm else nb.cells
    keep = []
    for c in cells:
        for k in set(c) - {'cell_type', 'id', 'metadata', 'source', 'outputs', 'execution_count', 'attachments'}: del c[k]   # nbdev's own marks
        c.metadata.pop('execution', None)                  # the processor's timings, not what the notebook format allows
        if c.cell_type == 'markdown': c.source = '\n'.join(l for l in c.source.splitlines() if not l.startswith(':::'))
        if c.cell_type == 'code':
            dirs = dict(re.findall(r'^#\|\s*([\w-]+):\s*(.*)$', c.source, re.M))
            c.source = '\n'.join(l for l in c.source.splitlines() if not l.startswith('#|'))
            if dirs.get('echo') == 'false' or c.metadata.get('transient', {}).get('remove_source') or not c.source.strip(): c.metadata.setdefault('tags', []).append('remove_input')
            if not c.source.strip() and not c.get('outputs'): continue
            for o in c.get('outputs', []):   # quarto's link attributes, which plain Markdown would print
                if 'text/markdown' in o.get('data', {}): o['data']['text/markdown'] = re.sub(r'\)\{target="_blank"[^}]*\}', ')', o['data']['text/markdown'])
        keep.append(c)
    head = f"{nav}\n\n# {fm.get('title', '')}\n\n> {fm.get('description', '')}" if fm else nav
    nb.cells = [nbformat.v4.new_markdown_cell(head)] + keep
    return nb

def render(names=None) -> list:
    "Render the processed pages to `_preview/NAME.html` (and `index.html`); returns the pages written"
    import nbformat
    from nbconvert import HTMLExporter
    from traitlets.config import Config
    if not PROC.exists(): sys.exit('No _proc/ folder: run nbdev-proc-nbs first (it processes nbs/ for the docs).')
    OUT.mkdir(exist_ok=True)
    if (PROC/'images').exists(): shutil.copytree(PROC/'images', OUT/'images', dirs_exist_ok=True)
    nav = ' · '.join(f"**{s or 'Home'}**: " + ', '.join(f'[{n}]({n}.html)' for n in pages) for s, pages in sidebar())
    cfg = Config(); cfg.TagRemovePreprocessor.remove_input_tags = ('remove_input',); cfg.TagRemovePreprocessor.enabled = True
    exporter = HTMLExporter(config=cfg, template_name='lab')
    written = []
    for p in sorted(PROC.glob('*.ipynb')):
        if names and p.stem not in names: continue
        nb = for_html(nbformat.read(p, as_version=4), nav)
        html, _ = exporter.from_notebook_node(nb)
        html = REMOTE_SCRIPT.sub('', html)   # require.js and MathJax from CDNs: nothing on these pages needs them, and offline they stall
        (OUT/f'{p.stem}.html').write_text(html)
        written.append(p.stem)
    if 'index' in written: shutil.copy(OUT/'index.html', OUT/'home.html')
    return written

def browser():
    "Headless chromium driven by selenium, through Debian's chromium-driver"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    o = webdriver.ChromeOptions()
    for a in ('--headless=new', '--no-sandbox', '--disable-dev-shm-usage', '--window-size=1280,1600'): o.add_argument(a)
    o.binary_location = shutil.which('chromium') or shutil.which('chromium-browser') or ''
    driver = shutil.which('chromedriver')
    if not (o.binary_location and driver): sys.exit('The check needs chromium and its driver: apt-get install -y chromium chromium-driver')
    d = webdriver.Chrome(options=o, service=Service(driver))
    d.set_page_load_timeout(30)
    return d

VISIBLE = "const r = arguments[0].getBoundingClientRect(); return arguments[0].checkVisibility() && r.width > 0 && r.height > 0;"

def check_page(d, name: str) -> list:
    "What page `name` lacks that a reader must see"
    from selenium.webdriver.common.by import By
    d.get((OUT/f'{name}.html').as_uri())
    problems, shown = [], lambda e: d.execute_script(VISIBLE, e)
    src = json.loads((PROC/f'{name}.ipynb').read_text())
    badges = [a for a in d.find_elements(By.CSS_SELECTOR, 'a[href^="https://colab.research.google.com/github/"]') if shown(a)]
    if not any(a.get_attribute('href').endswith(f'/nbs/{name}.ipynb') for a in badges): problems.append('no visible Colab badge for this notebook')
    want_imgs = re.findall(r'!\[[^\]]*\]\((images/[^)]+)\)', ''.join(''.join(c['source']) for c in src['cells'] if c['cell_type'] == 'markdown'))
    for i in want_imgs:
        img = d.find_elements(By.CSS_SELECTOR, f'img[src="{i}"]')
        if not img or not shown(img[0]) or not d.execute_script('return arguments[0].complete && arguments[0].naturalWidth > 0', img[0]):
            problems.append(f'image {i} not shown')
    if ALGORITHM.match(name) and not any(i.startswith('images/curves-') for i in want_imgs): problems.append('no learning-curve image')
    documented = [m for c in src['cells'] if c['cell_type'] == 'code' for m in re.findall(r'^show_doc\(([\w.]+)', ''.join(c['source']), re.M)]
    headings = {h.text.rstrip('¶').strip() for h in d.find_elements(By.CSS_SELECTOR, 'h2, h3, h4') if shown(h)}
    signatures = [s for s in d.find_elements(By.CSS_SELECTOR, 'h3 + div.highlight, h4 + div.highlight') if shown(s)]
    missing = [n for n in documented if not {n.replace('__', ''), n.split('.')[-1]} & headings]   # (markdown reads a dunder's underscores as bold)
    if missing: problems.append(f"show_doc of {', '.join(missing[:3])}{' ...' if len(missing) > 3 else ''} not shown")
    if documented and len(signatures) < len(documented) // 2: problems.append(f'{len(documented)} show_doc cells, {len(signatures)} signatures shown')
    return problems

def check(names: list) -> dict:
    "Open every page in headless chromium; {page: problems} for the pages with any; screenshots of the index and the PPO page"
    d = browser()
    try:
        bad = {n: p for n in names if (p := check_page(d, n))}
        for n in ('index', '11a_agents.policy_gradient.ppo'):
            if n in names: d.get((OUT/f'{n}.html').as_uri()); d.save_screenshot(str(OUT/f'screenshot-{n}.png'))
    finally: d.quit()
    return bad

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--check', action='store_true', help='open every page in headless chromium and check what it shows')
    ap.add_argument('pages', nargs='*', help='only these pages (notebook names without .ipynb)')
    a = ap.parse_args()
    names = render(a.pages)
    print(f'{len(names)} pages in {OUT}/ (open index.html)')
    if a.check:
        bad = check(names)
        for n, p in bad.items(): print(f'{n}: {"; ".join(p)}')
        print(f'{len(names) - len(bad)} pages show their badge, curves and show_doc entries; {len(bad)} do not; screenshots in {OUT}/')
        sys.exit(1 if bad else 0)
