"""export-system: BML and BSS read back by BML's own tools (bridge-markup), BBOalert by a
parser written here from the format's documentation.

The tests run on the openings and the 2H/2S relays (``small_system``): the whole system's tree
holds about 300,000 calls, which take minutes to write and BML's readers far longer to read."""

import io
import json
import re

import pytest

from canary_infer.bridge.auction import Auction
from canary_infer.tools.export import export
from canary_infer.ui.cli import main

bml = pytest.importorskip("bml.bml", reason="bridge-markup (BML's own tools) is in the test extras")
bml_bss = pytest.importorskip("bml.bss")
bss2bml = pytest.importorskip("bss.bss2bml")


def sequence(node) -> list[tuple[str, bool]]:
    """The calls from the opening to this node with the opponents' passes put in: (call, ours)."""
    path = []
    n = node
    while n.parent is not None:
        path.append(n)
        n = n.parent
    out = []
    for x in reversed(path):
        ours = not x.call.startswith("(")
        if out and out[-1][1] == ours:
            out.append(("P", not ours))
        out.append((x.call.strip("()"), ours))
    return out


def tree_nodes(system):
    return [n for n in system.nodes() if n.parent is not None]


def bml_tokens(seq):
    names = {"X": "D", "XX": "R"}
    return tuple(names.get(c, c) if ours else f"({names.get(c, c)})" for c, ours in seq)


def bml_table(text):
    content = bml.content_from_string(text)
    out = {}
    for kind, root in content.nodes:
        if kind != bml.ContentType.BIDTABLE:
            continue
        stack = list(root.children)
        while stack:
            n = stack.pop()
            stack.extend(n.children)
            if n.bid != bml.EMPTY:
                out[tuple(n.get_sequence())] = n.desc
    return content, out


def test_bml_reads_back_with_bmls_own_parser_as_the_same_tree(small_system):
    system = small_system
    text = export(system, "bml")
    content, table = bml_table(text)
    assert content.meta["TITLE"] == "Canary Club" and content.meta["DESCRIPTION"]
    nodes = tree_nodes(system)
    expected = {bml_tokens(sequence(n)): n for n in nodes}
    assert set(table) == set(expected) and len(table) == len(nodes)
    for seq, n in expected.items():
        desc = table[seq]
        if n.call.startswith("("):
            assert desc == n.meaning
        elif n.defined:
            assert desc.startswith(n.meaning.split(";")[0].strip()) and (not n.source or f"[{n.source}]" in desc)
        else:
            assert desc.startswith("not defined in the notes") or desc.startswith("no meaning given")
    two_s = table[("2S",)]
    assert "shows 11-16 HCP, 5-6 spades, 4-5 clubs, 5-6 Roman losers" in two_s
    # BML's own converter turns our BML into full-disclosure records, one per call (theirs too)
    records = bml_bss.to_systemdata(content)
    assert {str(r) for r in records} == {"".join(bml_tokens(sequence(n))).replace("(", "").replace(")", "")
                                         for n in nodes}


def read_bss(text):
    f = bss2bml.BssFile()
    for line in io.StringIO(text):
        while f.state_nr < len(bss2bml.BssFile.STATE) and not f.parse_line(line):
            f.state_nr += 1
    return f


def test_bss_reads_back_with_bmls_own_reader(small_system):
    system = small_system
    text = export(system, "bss")
    f = read_bss(text)
    assert f.file_type == "*" and f.system_name == "Canary Club" and f.summary
    _, table = bml_table(export(system, "bml"))
    ours = [n for n in tree_nodes(system) if not n.call.startswith("(")]
    names = {"X": "D", "XX": "R"}
    for n in ours:
        key = "00" + ",".join(names.get(c, c) for c, _ in sequence(n))
        assert key in f.parents, key
        # the same words as the BML export of the same call
        assert f.parents[key].desc == table[bml_tokens(sequence(n))]
    assert len(text.splitlines()) == 1 + len(ours)
    record = next(line for line in text.splitlines() if line.startswith("002S="))
    m = re.match(r"00(?P<seq>[^=]+)=(?P<art>[YN])(?P<out>[YN]{6})(?P<disp>[0-9A-E])(?P<k>\d)(?P<l>\d)", record)
    assert m and (m["k"], m["l"]) == ("5", "6")  # 2S promises 5-6 spades
    relay = next(line for line in text.splitlines() if line.startswith("002SP2N="))
    assert relay.startswith("002SP2N=YYYYYYYC")  # artificial, a relay


# BBOalert, from its README: a header "BBOalert[,<text>]", then records
# "<context>,<call>,<explanation>[,ignored]", calls as 2-character tokens (1C..7N, Db, Rd, '--' for
# pass), '+' repeating the previous context, a trailing backslash continuing the record; free
# text outside records; the explanation's text before '#' goes to the bidding box, after it to chat.
TOKEN = re.compile(r"[1-7][CDHSN]|Db|Rd|--")


def parse_bboalert(text):
    lines = text.splitlines()
    head = lines[0].split(",")
    assert head[0] == "BBOalert"
    records, previous, pending = {}, "", ""
    for raw in lines[1:]:
        line = pending + raw
        if line.endswith("\\"):
            pending = line[:-1]
            continue
        pending = ""
        fields = [f.strip() for f in line.split(",")]
        if len(fields) < 3:
            continue  # free text
        context, call, explanation = fields[:3]
        if context == "+":
            context = previous
        if not TOKEN.fullmatch(call):
            continue  # not an alert record (Option, Shortcut, ... or prose with commas)
        tokens = TOKEN.findall(context.replace(" ", ""))
        assert "".join(tokens) == context.replace(" ", ""), context
        records[(tuple(tokens), call)] = explanation
        previous = context
    return head, records


def test_bboalert_reads_back_as_every_call_of_ours_in_its_context(small_system):
    system = small_system
    head, records = parse_bboalert(export(system, "bboalert"))
    assert head[1].startswith("Canary Club")
    token = {"P": "--", "X": "Db", "XX": "Rd"}
    ours = [n for n in tree_nodes(system) if not n.call.startswith("(") and n.defined]
    assert len(records) == len(ours)
    for n in ours:
        seq = [token.get(c, c) for c, _ in sequence(n)]
        context = tuple(seq[:-1]) if len(seq) > 1 else ()
        explanation = records[(context, seq[-1])]
        box, chat = explanation.split("#", 1)
        assert len(box) <= 39 and chat.startswith(n.meaning.replace(",", ";")[:30])
        # the call is legal after its context
        calls = [{"--": "P", "Db": "X", "Rd": "XX"}.get(t, t) for t in context]
        Auction(calls).append({"--": "P", "Db": "X", "Rd": "XX"}.get(seq[-1], seq[-1]))


def test_export_system_command(capsys, tmp_path, small_system_dir):
    small = str(small_system_dir)  # the whole built-in tree (300,000 calls) takes minutes
    assert main(["export-system", "--format", "bboalert", "--system", small]) == 0
    text = capsys.readouterr().out
    assert text.startswith("BBOalert,") and re.search(r"^2H--2S--,2N,", text, re.M)
    out = tmp_path / "canary.bml"
    assert main(["export-system", "--format", "bml", "-o", str(out), "--system", small]) == 0
    assert out.read_text().startswith("#+TITLE: Canary Club")
    # a system from another folder
    folder = tmp_path / "sys"
    folder.mkdir()
    (folder / "a.canary").write_text('tree opening\n  1C  "strong"  [A1]\n      = hcp >= 16\n')
    assert main(["export-system", "--format", "bss", "--system", str(folder)]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[1].startswith("001C=NYYYYYY008strong; shows 16+ HCP [A1]")
    assert main(["export-system", "--format", "bss", "--system", str(tmp_path / "none")]) == 2
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "a.canary").write_text("tree opening\n  1C  oops\n")
    assert main(["export-system", "--format", "bml", "--system", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "a.canary:2" in err
    json.dumps(err)
