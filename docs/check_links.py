#!/usr/bin/env python3
"""Fails on a broken internal link of the built docs site.

    check_links.py HTML_DIR

Every href, src and data (images) of every page that is not external (http, https, mailto) must name a file of the site,
and an anchor (#id) must exist in the page it points to. The home page must link every guide and every lab
that is ready. Exit 0 when all links hold, 1 otherwise (each broken link named with the page it is on).
"""
import html
import pathlib
import re
import sys


def ids_of(text):
    return set(re.findall(r'\b(?:id|name)="([^"]+)"', text))


def main(html_dir):
    root = pathlib.Path(html_dir)
    pages = {p.name: p.read_text(errors="replace") for p in root.glob("*.html")}
    if "index.html" not in pages:
        print(f"FAIL no index.html in {root}")
        return 1
    anchors = {name: ids_of(text) for name, text in pages.items()}
    broken = []
    for name, text in pages.items():
        for m in re.finditer(r'\b(?:href|src|data)="([^"]*)"', text):
            url = html.unescape(m.group(1))
            if re.match(r"^(https?:|mailto:|javascript:)", url) or url == "":
                continue
            path, _, anchor = url.partition("#")
            target = name if path == "" else path
            if path and not (root / path).exists():
                broken.append(f"{name}: {url} (no such file)")
            elif anchor and target in anchors and anchor not in anchors[target]:
                broken.append(f"{name}: {url} (no anchor '{anchor}' in {target})")
    home = pages["index.html"]
    for page in ("grading.html", "instructor.html", "troubleshooting.html", "perflog.html", "lab00.html",
                 "lab03.html", "lab05.html", "md_README.html"):
        if f'href="{page}"' not in home:
            broken.append(f"index.html: no link to {page}")
    for b in broken:
        print("FAIL " + b)
    print(f"{len(broken)} broken link(s)" if broken else f"ok: {len(pages)} pages, every internal link holds")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
