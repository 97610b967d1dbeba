# SPDX-License-Identifier: GPL-2.0
"""docs/glossary.md's terms, linked at their first use in generated text.

Each term is defined once, under a heading of docs/glossary.md whose
anchor is given here; link_terms() turns the first use of each term in a
document (outside headings, code spans, links and images) into a link to
it, so that REPORT.md and the README blocks define every word they use
without a definition repeated in each.
"""

import os
import re

GLOSSARY = os.path.join("docs", "glossary.md")
# a REPORT.md sits in results/<dir>/: where the glossary is from there,
# when the directory is not inside the repository (a copy being checked)
FROM_RESULTS_DIR = os.path.join("..", "..", GLOSSARY)

# (pattern, anchor, case-insensitive): longer phrases before the words
# they hold; an index's name matches as written
TERMS = [
    (r"user-native", "user-native", False),
    (r"kernel-tcg", "kernel-tcg", False),
    (r"kernel-kvm", "kernel-kvm", False),
    (r"kernel-native", "kernel-native", False),
    (r"cachegrind", "cachegrind", True),
    (r"system-tcg", "system-tcg", False),
    (r"system-native", "system-native", False),
    (r"cache-true", "cache-true", True),
    (r"skip[- ]family", "skip-family", True),
    (r"paired ratios?", "paired-ratio", True),
    (r"paired repeats?", "paired-ratio", True),
    (r"not apart", "not-apart", True),
    (r"not measured", "not-measured", True),
    (r"intervals?", "interval", True),
    (r"inconclusive", "inconclusive", True),
    (r"met", "met", False),
    (r"missed", "missed", False),
    (r"slow", "slow", False),
    (r"retired", "retired", True),
    (r"map contract", "map-contract", True),
    (r"dependent", "dependent", True),
    (r"shape", "shape", True),
    (r"dense", "dense", True),
    (r"aged", "aged", True),
    (r"spread", "spread", True),
    (r"lfradix_pc", "lfradix_pc", False),
    (r"idr_onelock", "idr_onelock", False),
    (r"null", "null", False),
]
COMPILED = [(re.compile(r"(?<![\w/#.-])(" + p + r")(?![\w/-])",
                        re.I if ci else 0), a) for p, a, ci in TERMS]
# what a link may not go inside: code spans, links, images, HTML
PROTECTED = re.compile(r"`[^`]*`|!?\[[^\]]*\]\([^)]*\)|<[^>]*>")


def anchors():
    """Every anchor the terms link to."""
    return sorted({a for _, a, _ in TERMS})


def glossary_from(doc_dir):
    """The glossary's path relative to a document in @doc_dir: from the
    nearest directory above it that holds docs/glossary.md (the
    repository, or a copy of it); the usual place from results/<dir>/
    without one."""
    d = os.path.abspath(doc_dir)
    for _ in range(5):
        if os.path.isfile(os.path.join(d, GLOSSARY)):
            return os.path.relpath(os.path.join(d, GLOSSARY),
                                   os.path.abspath(doc_dir))
        d = os.path.dirname(d)
    return FROM_RESULTS_DIR


def _free(line, start, end):
    return not any(m.start() < end and start < m.end()
                   for m in PROTECTED.finditer(line))


def link_terms(text, base):
    """@text with the first use of each term linked to @base#anchor."""
    done = set()
    out = []
    fence = False
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
        if fence or line.startswith(("#", "![", "|---", "<!--")):
            out.append(line)
            continue
        for rx, anchor in COMPILED:
            if anchor in done:
                continue
            for m in rx.finditer(line):
                if _free(line, m.start(), m.end()):
                    line = (line[:m.start()] +
                            f"[{m.group(1)}]({base}#{anchor})" +
                            line[m.end():])
                    done.add(anchor)
                    break
        out.append(line)
    return "\n".join(out)
