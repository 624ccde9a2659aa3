"""links.py - every relative link of the Markdown files under DOCDIR leads
somewhere: the file or folder it names exists, and its #anchor, if any, is a
heading of the target (GitHub's anchors: lower case, punctuation dropped,
spaces as hyphens). Links inside code (fenced blocks, `spans`) are not links.
Absolute ones (http:, https:, mailto:) are not followed.
  python3 links.py DOCDIR [MIN_LINKS]
Exits 1 naming each broken link, or when fewer than MIN_LINKS links were seen
(a guard against a checker that reads nothing)."""
import os
import re
import sys

root = sys.argv[1]
min_links = int(sys.argv[2]) if len(sys.argv) > 2 else 1
link = re.compile(r"\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def prose(text):
    """the text without fenced code blocks and code spans"""
    out, fence = [], None
    for line in text.split("\n"):
        m = re.match(r"^\s*(```+|~~~+)", line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            out.append("")
            continue
        if m:
            fence = m.group(1)
            out.append("")
            continue
        out.append(re.sub(r"(`+)(?:(?!\1).)+?\1", "", line))
    return out


def anchors(path):
    """GitHub's anchors of the headings of a Markdown file (read with their
    code spans: a heading's `code` keeps its words in the anchor)"""
    seen, result, fence = {}, set(), False
    for line in open(path, encoding="utf-8").read().split("\n"):
        if re.match(r"^\s*(```|~~~)", line):
            fence = not fence
            continue
        m = None if fence else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        result.add(slug if n == 0 else "{0}-{1}".format(slug, n))
    return result


broken, count = [], 0
for dirpath, _dirs, files in os.walk(root):
    for name in sorted(files):
        if not name.endswith(".md"):
            continue
        path = os.path.join(dirpath, name)
        for lineno, line in enumerate(prose(open(path, encoding="utf-8").read()), 1):
            for target in link.findall(line):
                if re.match(r"^[a-z]+:", target):
                    continue
                count += 1
                file_part, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(dirpath, file_part)) if file_part else path
                where = "{0}:{1}: ({2})".format(os.path.relpath(path, root), lineno, target)
                if not os.path.exists(dest):
                    broken.append(where + " names " + os.path.relpath(dest, root) + ", which is not there")
                elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                    broken.append(where + " names no heading of " + os.path.relpath(dest, root))
for b in broken:
    print("FAIL: " + b)
print("{0} relative links under {1}, {2} broken".format(count, root, len(broken)))
if count < min_links:
    print("FAIL: fewer than {0} links found: the checker reads nothing".format(min_links))
sys.exit(1 if broken or count < min_links else 0)
