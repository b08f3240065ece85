"""Take the README's screenshots of the explorer page with headless Chromium.

    python docs/screenshot.py [AUCTION] [OUT.png]

Starts the page on a free local port, opens it in Debian's chromium through
chromedriver, bids the auction by clicking the bidding box, gives North a hand (the
page then shows it as cards and what the system bids with it), and saves the whole page
at a desktop's width (docs/serve.png, 1400 px) and the first screen of a phone
(docs/serve-phone.png, 390x844: one column, the auction and the bidding box first).
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

from werkzeug.serving import make_server

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def browser(width: int = 1400, height: int = 1100):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
              f"--window-size={width},{height}", "--force-device-scale-factor=1"):
        opts.add_argument(a)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)


class Server:
    """The explorer page on a free port of 127.0.0.1, in a thread."""

    def __init__(self, app):
        self.httpd = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.httpd.server_port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.thread.join(10)


def bid(driver, base: str, calls: list[str]) -> None:
    from selenium.webdriver.common.by import By

    driver.get(base + "/")
    for c in calls:
        driver.find_element(By.CSS_SELECTOR, f'#bidding-box a[data-call="{c}"]').click()


HAND = "N:KJ9864..J75.AKT5"  # a 2S opening (dealt by the exact sampler): the system then bids 3D
PHONE = (390, 844)


def full_page(driver, width: int, out: Path, least: int = 900, most: int = 4000) -> None:
    """Save the whole page at this width (the height settles once the width is set)."""
    for _ in range(2):
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(width, min(max(height, least), most))
    driver.save_screenshot(str(out))


def main() -> None:
    from urllib.parse import quote

    from canary_infer.ui.web import create_app

    auction = (sys.argv[1] if len(sys.argv) > 1 else "2S P 2N P").split()
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "docs" / "serve.png"
    phone = out.with_name(out.stem + "-phone" + out.suffix)
    with Server(create_app(deals=2)) as srv:
        d = browser()
        try:
            bid(d, srv.url, auction)
            d.get(d.current_url + "&hand=" + quote(HAND))
            full_page(d, 1400, out)
            d.set_window_size(*PHONE)  # the first screen, as a phone shows it
            d.refresh()
            d.save_screenshot(str(phone))
        finally:
            d.quit()
    print(out, phone)


if __name__ == "__main__":
    main()
