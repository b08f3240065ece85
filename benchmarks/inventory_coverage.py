"""How many of the call meanings an inventory lists are in the system files, section by section.

    python benchmarks/inventory_coverage.py PATH/TO/inventory.md [SECTION ...]

The inventory (the spec's ``inventory.md``, outside this project: give its path) lists each
meaning as a bullet that starts with a back-quoted auction.  A concrete auction (``1S-2H-2N-3C``)
is walked in the built-in call tree: it counts when the call is there with a meaning, or marked
undefined where the notes say so.  A generic entry (``1x-JS-(raise)``, marked (G)) cannot be
walked; it counts when one of its line references is cited by a call line of the files.  Every
entry that does not count is printed, to be looked at by hand.
"""

from __future__ import annotations

import re
import sys
from collections import OrderedDict, defaultdict
from pathlib import Path

from canary_infer.system.model import builtin_dir, load_system

CALL = re.compile(r"\(?(P|X|XX|[1-7][CDHSN])\)?")


def refs(text: str) -> set[tuple[str, int]]:
    out = set()
    for grp in re.findall(r"\[([AB][^\]]*)\]", text):
        for part in re.split(r"[,;]\s*", grp):
            m = re.match(r"([AB])(\d+)(?:\s*[-–]\s*[AB]?(\d+))?", part.strip())
            if m:
                a, b = int(m.group(2)), int(m.group(3) or m.group(2))
                out |= {(m.group(1), i) for i in range(a, (b if b - a <= 200 else a) + 1)}
    return out


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    inventory = Path(argv[0]).read_text(encoding="utf-8").splitlines()
    wanted = [int(x) for x in argv[1:]]
    files = sorted(Path(builtin_dir()).glob("*.canary"))
    cited = set()
    for f in files:
        for line in f.read_text(encoding="utf-8").splitlines():
            s = line.strip()
            if s and not s.startswith(("#", "note", "interpretation")):
                cited |= refs(s)
    system = load_system([str(f) for f in files])
    per: OrderedDict[int, list[int]] = OrderedDict()
    left: defaultdict[int, list[str]] = defaultdict(list)
    sec = None
    for line in inventory:
        if m := re.match(r"## (\d+)\. ", line):
            sec = int(m.group(1))
            continue
        if sec is None or not line.startswith("- `"):
            continue
        counts = per.setdefault(sec, [0, 0, 0, 0])  # entries, in the tree, generic by reference, undefined
        counts[0] += 1
        calls = re.match(r"- `([^`]*)`", line).group(1).replace("–", "-").split("-")
        if "(G)" not in line and all(CALL.fullmatch(c) for c in calls):
            node = system.root("opening")
            for c in calls:
                node = node.children.get(c) if node is not None else None
            if node is not None and node.defined:
                counts[1] += 1
            elif node is not None:
                counts[3] += 1
                left[sec].append("marked undefined: " + line[:140])
            else:
                left[sec].append("not in the tree:  " + line[:140])
        elif refs(line) & cited:
            counts[2] += 1
        else:
            left[sec].append("generic, look:    " + line[:140])
    total = [0, 0, 0, 0]
    for s, c in per.items():
        if wanted and s not in wanted:
            continue
        total = [a + b for a, b in zip(total, c, strict=True)]
        print(f"§{s}: {c[0]} entries: {c[1]} in the tree, {c[2]} generic (cited), {c[3]} marked undefined")
        for x in left[s]:
            print("    " + x)
    print(f"all: {total[0]} entries: {total[1]} in the tree, {total[2]} generic (cited), {total[3]} marked undefined")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
