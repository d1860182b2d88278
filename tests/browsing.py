"""Waiting on a page in a real browser under the site's Content Security Policy.

Playwright's `wait_for_function` polls by evaluating its text inside the page, which a policy of
`script-src 'self'` forbids; these waits evaluate from outside the page, as `page.evaluate` does.
"""

from __future__ import annotations

import time
from typing import Any


def until(page: Any, expression: str, timeout: float = 15.0) -> Any:
    """Wait until `expression` is truthy in the page; its value, or AssertionError naming it."""
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(expression)
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not true within {timeout:.0f} s: {expression}")
        page.wait_for_timeout(50)


def follow(page: Any, link: Any, timeout: float = 15.0) -> None:
    """Click a link and wait until the page it leads to has loaded. Waiting for the load state alone
    right after a click can return at once: the page being left is loaded too."""
    before = page.url
    link.click()
    page.wait_for_url(lambda url: url != before, timeout=timeout * 1000)
