"""The explorer page in a real browser: headless Chromium (Debian's chromium and
chromium-driver) driven by Selenium bids an auction by clicking, and what the page shows
is checked against ``infer --json``.

Without a browser these tests skip, saying why; in CI (CI=true, where .ci/run installs the
browser) a missing browser is a failure."""

import io
import json
import os
import sys
from contextlib import redirect_stdout
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs"))

import screenshot  # noqa: E402  (docs/screenshot.py: the browser, the server, clicking a call)

from canary_infer.bridge.cards import Deal  # noqa: E402
from canary_infer.bridge.lin import read_lin  # noqa: E402
from canary_infer.ui.cli import main  # noqa: E402


def missing() -> list[str]:
    out = []
    try:
        import selenium  # noqa: F401
    except ImportError:
        out.append("the selenium package is not installed (it is in the test extras)")
    for path, pkg in ((screenshot.CHROMIUM, "chromium"), (screenshot.CHROMEDRIVER, "chromium-driver")):
        if not os.path.exists(path):
            out.append(f"{path} is missing (apt-get install {pkg})")
    return out


@pytest.fixture(scope="module")
def page(system):
    why = missing()
    if why:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI must run the browser tests: " + "; ".join(why))
        pytest.skip("no browser here: " + "; ".join(why))
    from canary_infer.ui.web import create_app

    with screenshot.Server(create_app(system, deals=2)) as srv:
        driver = screenshot.browser()
        try:
            yield driver, srv.url
        finally:
            driver.quit()


def by_css(driver, css):
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, css)


def infer_json(*argv):
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["infer", "--json", *argv]) == 0
    return json.loads(buf.getvalue())


def check_seats_against_infer(driver, expected):
    for seat, h in expected["hands"].items():
        (panel,) = by_css(driver, f"#seat-{seat}")
        if not h["consistent"]:
            assert panel.get_attribute("data-consistent") == "no"
            continue
        assert panel.get_attribute("data-hcp") == f"{h['hcp'][0]}-{h['hcp'][1]}"
        shown = panel.get_attribute("data-patterns").split()
        assert sorted(shown) == sorted(h["patterns"]), seat
        for suit, (lo, hi) in h["lengths"].items():
            (cell,) = by_css(driver, f"#seat-{seat} td[data-suit='{suit}']")
            assert cell.text == (str(lo) if lo == hi else f"{lo}–{hi}")
        if "probabilities" in h:  # the bars' percentages are infer --prob's (the ten likeliest)
            want = h["probabilities"]["patterns"]
            for bar in by_css(driver, f"#seat-{seat} .pattern"):
                pattern = bar.get_attribute("data-pattern")
                shown = bar.find_element("css selector", "span.p").text
                p = want.get(pattern, 0.0)
                if h.get("known"):
                    assert shown == "100.0%"
                elif h["exact"]:
                    assert shown == f"{100 * p:.1f}%", (seat, pattern)
                else:
                    se = h["standard_errors"]["patterns"].get(pattern)
                    assert shown == (f"{100 * p:.1f}% ±{100 * se:.1f}" if se is not None else "not drawn")


def test_bid_by_clicking_and_the_page_agrees_with_infer_json(page):
    driver, base = page
    screenshot.bid(driver, base, ["2S", "P", "2N", "P", "3C"])
    assert parse_qs(urlparse(driver.current_url).query)["a"] == ["2S-P-2N-P-3C"]
    expected = infer_json("2S P 2N P 3C", "--prob")
    check_seats_against_infer(driver, expected)
    footer = by_css(driver, "#probabilities")[0].get_attribute("title")  # exactly; the text says 7.0 × 10²⁵
    assert f"exact: the share of each among all {expected['deals']:,} deals consistent with the auction" in footer
    # every call with its meaning; the defenders' passes marked undefined
    items = by_css(driver, "#meanings li")
    assert [i.get_attribute("data-call") for i in items] == ["2S", "P", "2N", "P", "3C"]
    assert [i.get_attribute("data-defined") for i in items] == ["yes", "no", "yes", "no", "yes"]
    assert "short Ds with 3+ Hs" in items[4].text and "shows at most 1 diamond, 3+ hearts" in items[4].text
    # North's patterns with their probability bars, and an HCP histogram over 11..16
    bars = by_css(driver, "#seat-N .pattern")
    assert len(bars) == 4 and all(b.text.strip().endswith("%") for b in bars)
    assert sum(float(b.get_attribute("data-p")) for b in bars) == pytest.approx(1, abs=1e-12)
    assert [b.get_attribute("data-hcp") for b in by_css(driver, "#seat-N .hist div")] == [str(k) for k in range(11, 17)]


def test_the_bidding_box_offers_only_legal_calls_and_the_explore_view_the_systems(page):
    driver, base = page
    screenshot.bid(driver, base, ["2S", "P", "2N", "P", "3C", "P"])
    offered = {a.get_attribute("data-call") for a in by_css(driver, "#bidding-box a[data-call]")}
    refused = {s.get_attribute("data-illegal") for s in by_css(driver, "#bidding-box span[data-illegal]")}
    assert "3C" in refused and "2S" in refused and "1N" in refused and "X" in refused and "XX" in refused
    assert {"P", "3D", "3N", "7N"} <= offered and not offered & refused and len(offered | refused) == 38
    nxt = [r.get_attribute("data-next") for r in by_css(driver, "#next-calls tr[data-next]")]
    assert nxt[0] == "3D" and "3N" in nxt
    assert "relay" in by_css(driver, "#next-calls tr[data-next='3D']")[0].text
    # the system's calls are the green ones in the box
    green = {a.get_attribute("data-call") for a in by_css(driver, "#bidding-box a.defined")}
    assert green == set(nxt)


def test_own_hand_and_a_shared_link(page):
    driver, base = page
    screenshot.bid(driver, base, ["1S"])
    (box,) = by_css(driver, "#hand-input")
    box.clear()
    box.send_keys("S:KQ2.A87.QJ54.962")
    by_css(driver, "#hand-submit")[0].click()
    # the form's submission loads a new page: wait for it (a loaded machine can be slow)
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 30).until(lambda d: "hand=" in d.current_url and by_css(d, "#seat-S h2"))
    assert "(your hand)" in by_css(driver, "#seat-S h2")[0].text
    check_seats_against_infer(driver, infer_json("1S", "--hand", "S:KQ2.A87.QJ54.962", "--prob"))
    assert "consistent with the auction and your hand" in by_css(driver, "#probabilities")[0].text
    link = by_css(driver, "#share")[0].get_attribute("href")
    driver.get("about:blank")
    driver.get(link)  # the position travels in the address
    assert [i.get_attribute("data-call") for i in by_css(driver, "#meanings li")] == ["1S"]
    assert "(your hand)" in by_css(driver, "#seat-S h2")[0].text


def test_estimated_probabilities_show_their_standard_error(page):
    """1H X P 1S: three unseen seats constrained: the shares of 2,000 exact samples, with ±."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver, base = page
    screenshot.bid(driver, base, ["1H", "X", "P", "1S"])
    # the first visit shows 500 deals' estimates, and the page puts those of 2,000 in their place
    WebDriverWait(driver, 60).until(lambda d: by_css(d, "#seats[data-samples='2000']"))
    assert not by_css(driver, "#refining") and not by_css(driver, "#seats[data-later]")
    check_seats_against_infer(driver, infer_json("1H X P 1S", "--prob", "--samples", "2000"))
    assert all(s.get_attribute("data-scope") == "estimated" for s in by_css(driver, "section.seat"))
    assert "estimated from 2,000 deals drawn uniformly by the exact sampler" in by_css(driver, "#probabilities")[0].text


def test_example_deals_fit_and_link_to_the_handviewer(page, inferencer):
    driver, base = page
    screenshot.bid(driver, base, ["2H", "P", "2N"])
    deals = by_css(driver, "#deals .deal")
    assert deals
    for d in deals:
        deal = Deal.from_pbn(d.get_attribute("data-deal"))
        assert deal["N"].length("H") in (5, 6) and deal["S"].length("S") >= 6
        href = d.find_element("css selector", "a.handviewer").get_attribute("href")
        (board,) = read_lin(parse_qs(urlparse(href).query)["lin"][0])
        assert board.deal == deal and str(board.auction) == "2H P 2N"


def test_errors_are_shown_not_raised_and_a_screenshot_is_taken(page, tmp_path):
    driver, base = page
    driver.get(base + "/?a=1S-1H&hand=S:AKQ")
    errors = by_css(driver, "#errors")[0].text
    assert "insufficient" in errors and "your hand 'S:AKQ'" in errors
    assert [i.get_attribute("data-call") for i in by_css(driver, "#meanings li")] == ["1S"]
    driver.get(base + "/?a=2S-P-2N-P-3C")
    out = tmp_path / "page.png"
    assert driver.save_screenshot(str(out))
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


TAPPABLE = "a, button, input, select, summary"


def small_targets(driver) -> list[str]:
    """The visible tap targets smaller than 44 x 44 CSS pixels (what a finger needs)."""
    return driver.execute_script("""
        const out = [];
        for (const el of document.querySelectorAll(arguments[0])) {
          if (el.type === 'hidden') continue;
          const r = el.getBoundingClientRect();
          if (r.width === 0 && r.height === 0) continue;  // not shown (inside a closed "more")
          const name = el.id || el.textContent.trim().slice(0, 20);
          if (r.width < 44 || r.height < 44) out.push(`${el.tagName} ${name} ${r.width}x${r.height}`);
        }
        return out;""", TAPPABLE)


@pytest.fixture
def phone(page):
    driver, base = page
    driver.set_window_size(*screenshot.PHONE)
    try:
        yield driver, base
    finally:
        driver.set_window_size(1400, 1000)


def test_on_a_phone_one_column_the_auction_first_and_big_tap_targets(phone):
    driver, base = phone
    assert driver.execute_script("return window.innerWidth") == 390
    screenshot.bid(driver, base, ["2S", "P", "2N", "P"])
    driver.get(driver.current_url + "&hand=N:KJ9864..J75.AKT5")
    # nothing wider than the screen: no sideways scrolling, no shrunken desktop page
    assert driver.execute_script("return document.documentElement.scrollWidth") <= 390
    tops = {css: by_css(driver, css)[0].rect["y"] for css in ("#auction", "#bidding-box", "#own-hand", "#seat-N",
                                                               "#deals", ".controls")}
    assert tops["#auction"] < tops["#bidding-box"] < tops["#own-hand"] < tops["#seat-N"] < tops["#deals"]
    assert tops["#auction"] < 200 and tops["#bidding-box"] < 844  # both on the first screen
    lefts = {round(by_css(driver, f"#seat-{s}")[0].rect["x"]) for s in "NESW"}
    assert len(lefts) == 1  # the seats one under another
    assert small_targets(driver) == []
    font = driver.execute_script("return parseFloat(getComputedStyle(document.querySelector('#meanings li')).fontSize)")
    assert font >= 12
    by_css(driver, "#bidding-box a[data-call='3D']")[0].click()
    assert parse_qs(urlparse(driver.current_url).query)["a"] == ["2S-P-2N-P-3D"]
    for path in ("/bid?a=2S-P-2N-P&d=N&seed=5&pick=3C", "/partner?a=2S-P-2N-P-3C-P&lo=10&hi=14&suit=S"):
        driver.get(base + path)
        assert driver.execute_script("return document.documentElement.scrollWidth") <= 390, path
        assert small_targets(driver) == [], path


def test_the_desktop_page_keeps_two_columns(page):
    driver, base = page
    driver.get(base + "/?a=2S-P-2N-P-3C")
    assert by_css(driver, "#bidding-box")[0].rect["x"] < by_css(driver, "#seat-N")[0].rect["x"]
    assert by_css(driver, "#seat-N")[0].rect["x"] < by_css(driver, "#seat-E")[0].rect["x"]
    # the long meaning opens behind "more"
    (more,) = by_css(driver, "#meanings li[data-call='2S'] details.more summary")
    hidden = by_css(driver, "#meanings li[data-call='2S'] details.more .interp")[0]
    assert not hidden.is_displayed()
    more.click()
    assert hidden.is_displayed() and hidden.text.startswith("interpretation:")


@pytest.mark.parametrize("width", [1400, 390])
def test_what_do_you_bid_exercise(page, width):
    """Deal a hand for the position, pick a call in the bidding box: the page says whether the
    system agrees (the bidder's call with this hand), why, and what each call would show."""
    from canary_infer.bridge.auction import Auction
    from canary_infer.bridge.cards import Hand
    from canary_infer.tools.bidding import Bidder

    driver, base = page
    driver.set_window_size(width, 1000 if width > 400 else 844)
    try:
        driver.get(base + "/?a=2S-P-2N-P")
        by_css(driver, "#mode-bid")[0].click()
        query = parse_qs(urlparse(driver.current_url).query)
        assert urlparse(driver.current_url).path == "/bid" and query["a"] == ["2S-P-2N-P"] and query["seed"]
        cards = {s.get_attribute("data-suit"): "".join(c.text for c in s.find_elements("css selector", ".card"))
                 for s in by_css(driver, "#bid-hand .suit")}
        hand = Hand.from_pbn(".".join(cards[s].replace("10", "T") for s in "SHDC"))
        want = Bidder().bid(hand, Auction.parse("2S P 2N P"))
        assert want.status in ("ok", "several")
        right = want.calls[0]
        wrong = next(c for c in ("3C", "3D", "3H", "3S", "3N") if c not in want.calls)
        shared = driver.current_url
        by_css(driver, f"#bidding-box a[data-call='{wrong}']")[0].click()
        assert by_css(driver, "#verdict")[0].get_attribute("data-agree") in ("no", "open")
        assert f"Your {wrong[0]}" in by_css(driver, "#your-call-shows")[0].text
        assert by_css(driver, "#next-calls tr[data-next]")  # what each call would have shown
        driver.get(shared)  # the address gives the same hand again
        by_css(driver, f"#bidding-box a[data-call='{right}']")[0].click()
        (verdict,) = by_css(driver, "#verdict")
        label = right[0] + ("NT" if right[1] == "N" else "♠♥♦♣"["SHDC".index(right[1])])
        assert verdict.get_attribute("data-agree") == "yes" and label in verdict.text
        assert {li.get_attribute("data-call") for li in by_css(driver, "#why li")} == set(want.calls)
    finally:
        driver.set_window_size(1400, 1000)


@pytest.mark.parametrize("width", [1400, 390])
def test_what_does_partner_hold_exercise(page, width):
    """Estimate partner's HCP range and longest suit: scored against the exact answer, with
    partner's HCP distribution shown (the guess highlighted) and infer's exact range."""
    driver, base = page
    driver.set_window_size(width, 1000 if width > 400 else 844)
    try:
        driver.get(base + "/partner?a=2S-P-2N-P-3C-P&d=N")
        assert "what does partner (North) hold?" in by_css(driver, "#guess h2")[0].text
        for css, value in (("#guess-lo", "11"), ("#guess-hi", "14")):
            (box,) = by_css(driver, css)
            box.clear()
            box.send_keys(value)
        from selenium.webdriver.support.ui import Select, WebDriverWait

        Select(by_css(driver, "#guess-suit")[0]).select_by_value("S")
        by_css(driver, "#guess-submit")[0].click()
        WebDriverWait(driver, 30).until(lambda d: by_css(d, "#result"))
        expected = infer_json("2S P 2N P 3C P", "--prob")["hands"]["N"]
        lo, hi = expected["hcp"]
        hist = by_css(driver, "#result .hist div")
        assert [d.get_attribute("data-hcp") for d in hist] == [str(k) for k in range(lo, hi + 1)]
        assert [d.get_attribute("data-hcp") for d in hist if "in" in d.get_attribute("class").split()] == [
            str(k) for k in range(11, 15)]
        inside = sum(v for k, v in expected["probabilities"]["hcp"].items() if 11 <= int(k) <= 14)
        assert f"{100 * inside:.0f}% of partner's possible hands" in by_css(driver, "#score-hcp")[0].text
        assert f"the exact range is {lo}–{hi}" in by_css(driver, "#score-hcp")[0].text
        score = int(by_css(driver, "#result")[0].get_attribute("data-score"))
        assert score == round(50 * inside * min(1, (hi - lo + 1) / 4)) + 50
        assert "lo=11" in driver.current_url and "suit=S" in driver.current_url  # shareable
    finally:
        driver.set_window_size(1400, 1000)
