"""Relative links and images of markdown files resolve."""
import os
import re

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def relative_links(md):
    """(target, whether it resolves) of each relative link and image of
    MD outside code; the handout's check reads them too."""
    with open(md, encoding="utf-8") as f:
        text = re.sub(r"```.*?```", "", f.read(), flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue
        path = os.path.normpath(os.path.join(os.path.dirname(md), target.split("#")[0]))
        yield target, os.path.exists(path)


def links(files):
    bad = n = 0
    for md in files:
        for target, ok in relative_links(md):
            n += 1
            if not ok:
                print("%s: broken link %s" % (md, target))
                bad += 1
    print("%d relative links checked" % n)
    return bad == 0 and n > 0
