#!/usr/bin/env python3
"""Fails on a broken internal link of the built docs site.

    check_links.py HTML_DIR

Every href, src and data (images) of every page that is not external (http, https, mailto) must name a file of the site,
and an anchor (#id) must exist in the page it points to. The home page must link every guide and every lab
that is ready. A guide's or handout's prose must not show markdown that Doxygen left unrendered: "**" outside code means a
bold that did not take (Doxygen does not open bold before a quote or a backtick). Exit 0 when all hold, 1
otherwise (each problem named with the page it is on).
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
    for name, text in pages.items():
        if not re.match(r"^(index|grading|instructor|troubleshooting|perflog|lab\d\d|md_.*)\.html$", name):
            continue  # the API pages: "**" there is C++ (char **argv)
        prose = re.sub(r"(?s)<(pre|code|script|style)\b.*?</\1>", "", text)
        prose = re.sub(r"(?s)<div class=\"fragment\">.*?</div><!-- fragment -->", "", prose)
        for m in re.finditer(r"\*\*", re.sub(r"<[^>]+>", "", prose)):
            broken.append(f"{name}: unrendered '**' (a bold Doxygen did not open; start it with a letter)")
            break
    for page in ("grading.html", "instructor.html", "troubleshooting.html", "perflog.html", "lab00.html",
                 "lab01.html", "lab02.html", "lab03.html", "lab04.html", "lab05.html", "md_README.html"):
        if f'href="{page}"' not in home:
            broken.append(f"index.html: no link to {page}")
    for b in broken:
        print("FAIL " + b)
    print(f"{len(broken)} problem(s)" if broken else f"ok: {len(pages)} pages, every internal link holds, no unrendered bold")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
