"""The annotation page in a real browser: headless Chromium from Debian's packages, driven by selenium through
Debian's chromedriver (no browser or driver is downloaded). Labels five items by clicking and by keys, kills
the server, restarts it and checks that the page resumes at the first unlabelled item and that labels.jsonl
holds exactly the five labels; hostile model text stays text."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.annotate.conftest import ORDER, RATIONALE, Annotator, read_jsonl, wait_for

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (Debian's chromium and chromium-driver: "
    "scripts/install-system-tools.sh, which `make setup` runs, installs them as root)")

FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1400,1000"]


@pytest.fixture
def browser(tmp_path: Path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    if CHROMEDRIVER is None:  # chromium without its driver is a broken setup, not a reason to skip
        pytest.fail("chromedriver is not installed: apt-get install chromium-driver (scripts/install-system-tools.sh)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for flag in [*FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]:
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=opts)
    driver.set_page_load_timeout(20)
    try:
        yield driver
    finally:
        driver.quit()


def _body(driver, name: str) -> str:
    return driver.find_element("tag name", "body").get_attribute(f"data-{name}") or ""


def _open(driver, url: str) -> None:
    driver.get(url)
    wait_for(lambda: _body(driver, "ready") == "1", what="the page to load its first item")


def _at(driver, position: int) -> None:
    wait_for(lambda: _body(driver, "position") == str(position), what=f"item {position}")


def _labelled(driver, n: int) -> None:
    wait_for(lambda: _body(driver, "labelled") == str(n), what=f"{n} labels")


def _key(driver, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(key).perform()


def test_label_five_kill_restart_resume(run_copy, annotators, browser, tmp_path):
    suite, run = run_copy
    server = Annotator(run, suite, "alice")
    annotators.append(server)
    _open(browser, server.url)
    _at(browser, 0)
    assert browser.find_element("id", "progress").text == f"0 of {len(ORDER)} labelled"
    assert "Hidden until you label" in browser.find_element("id", "verdict").text
    assert browser.find_element("id", "verdict-short").text == ""
    browser.find_element("id", "lab-3").click()  # 1: click
    _labelled(browser, 1)
    assert "Unit tests: passed" in browser.find_element("id", "verdict").text  # shown once labelled
    assert browser.find_element("id", "verdict-short").text == "tests: passed 3/3"  # and in the header
    _key(browser, "n")  # 2: keys, with a comment typed first
    _at(browser, 1)
    browser.find_element("id", "comment").send_keys("raises instead of computing")
    _key(browser, "\ue00c")  # Escape leaves the comment field, so the next key is a shortcut
    _key(browser, "1")
    _labelled(browser, 2)
    browser.find_element("id", "next").click()  # 3: click next, key label
    _at(browser, 2)
    _key(browser, "3")
    _labelled(browser, 3)
    _key(browser, "p")  # back and forth: the earlier label is shown
    _at(browser, 1)
    assert "chosen" in browser.find_element("id", "lab-1").get_attribute("class")
    assert browser.find_element("id", "comment").get_attribute("value") == "raises instead of computing"
    _key(browser, "n")
    _at(browser, 2)
    _key(browser, "n")
    _at(browser, 3)
    browser.find_element("id", "lab-1").click()  # 4: click
    _labelled(browser, 4)
    _key(browser, "n")  # 5: the hostile candidate, by key
    _at(browser, 4)
    diff = browser.find_element("id", "diff-body").text
    assert "</script><script>window.__pwned = 1</script>" in diff and "<img src=x onerror=" in diff
    assert RATIONALE not in browser.page_source  # the judge's rationale is not on the page before labelling
    _key(browser, "2")
    _labelled(browser, 5)
    assert RATIONALE in browser.find_element("id", "verdict").text  # shown as text after labelling
    assert browser.execute_script("return window.__pwned === undefined && document.images.length === 0")
    browser.save_screenshot(str(tmp_path / "annotate.png"))

    server.kill()
    lines = read_jsonl(run / "labels.jsonl")
    assert [(r["instance_id"], r["model"], r["category"]) for r in lines] == [
        (*ORDER[0], 3), (*ORDER[1], 1), (*ORDER[2], 3), (*ORDER[3], 1), (*ORDER[4], 2)]
    assert lines[1]["comment"] == "raises instead of computing" and {r["annotator"] for r in lines} == {"alice"}

    again = Annotator(run, suite, "alice")
    annotators.append(again)
    _open(browser, again.url)
    _at(browser, 5)  # the first item alice has not labelled
    assert browser.find_element("id", "progress").text == f"5 of {len(ORDER)} labelled"
    assert "Hidden until you label" in browser.find_element("id", "verdict").text
    assert browser.find_element("id", "item-id").text.startswith("t3/1 · reference")
    assert len(read_jsonl(run / "labels.jsonl")) == 5  # opening and browsing write nothing


def test_another_annotator_starts_at_the_beginning(run_copy, annotators, browser):
    suite, run = run_copy
    (run / "labels.jsonl").write_text('{"annotator": "alice", "instance_id": "t1/1", "model": "reference", '
                                      '"sample": 0, "category": 3}\n')
    server = Annotator(run, suite, "bob")
    annotators.append(server)
    _open(browser, server.url)
    _at(browser, 0)
    assert browser.find_element("id", "progress").text == f"0 of {len(ORDER)} labelled"
    assert browser.execute_script("return window.__pageErrors.length") == 0
