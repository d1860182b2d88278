"""Would a model trained on the labelled comments read redirects better than the sentence grammar?
Cross-validated on the tune split alone, so the held-out split stays unread.

    python bench/redirects_cv.py [--folds 5] [--min-count 2]

Trains a logistic regression (numpy, L2) on each comment's words and word pairs, addresses and
mailboxes replaced by the venue they name, with folds cut by a hash of the repository owner as the
held-out split is. Prints recall and near misses taken out of fold, once for words alone and once
with the grammar's verdict (its kind of sentence, a welcome) added as features. The grammar was
written looking at every tune row, so the second figure flatters it; the first is the honest
estimate of what the words alone teach a model.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import math
import re
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src")]

from porchlamp.evaluate import redirect  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "redirect_comments.csv"
_WORD = re.compile(r"[a-z][a-z'’-]+")
_ADDRESS = re.compile(r"https?://\S+|\b\S+@\S+")


def features(text: str, grammar: bool) -> set[str]:
    """Words and word pairs of a comment (quotes and code set aside), plus the grammar's verdict."""
    plain = redirect._QUOTED_LINE.sub(" ", redirect._CODE.sub(" ", text))
    plain = _ADDRESS.sub(lambda m: f" {redirect._venue(m.group(0), m.group(0).lower())[0] or 'link'}_place ", plain)
    words = _WORD.findall(plain.lower())
    out = set(words) | {f"{a} {b}" for a, b in zip(words, words[1:])}
    if grammar:
        reading = redirect.read(text)
        if reading.redirect is not None:
            out |= {"grammar:" + reading.redirect.why, "grammar:any"}
        if reading.welcomes:
            out.add("grammar:welcome")
    return out


def fit(xs: list[set[str]], ys: list[bool], vocab: dict[str, int], epochs: int = 300, l2: float = 1.0,
        rate: float = 0.5) -> tuple[np.ndarray, float]:
    """Weights and bias of an L2 logistic regression, by plain gradient descent."""
    a = np.zeros((len(xs), len(vocab)))
    for i, x in enumerate(xs):
        for f in x:
            if f in vocab:
                a[i, vocab[f]] = 1.0
    y = np.array(ys, dtype=float)
    w, b = np.zeros(len(vocab)), 0.0
    for _ in range(epochs):
        p = 1.0 / (1.0 + np.exp(-(a @ w + b)))
        w -= rate * (a.T @ (p - y) + l2 * w) / len(xs)
        b -= rate * float(np.mean(p - y))
    return w, b


def cross_validate(rows: list[dict[str, str]], folds: int, min_count: int, grammar: bool) -> tuple[int, int, int, int]:
    """(redirects recognised, redirects, near misses taken, near misses) out of fold."""
    def fold(r: dict[str, str]) -> int:
        return int(hashlib.sha256(("cv" + r["url"].split("/")[3].lower()).encode()).hexdigest(), 16) % folds
    found = taken = 0
    for k in range(folds):
        train = [r for r in rows if fold(r) != k]
        xs = [features(r["text"], grammar) for r in train]
        counts = Counter(f for x in xs for f in x)
        vocab = {f: i for i, f in enumerate(sorted(f for f, n in counts.items() if n >= min_count))}
        w, b = fit(xs, [r["label"] == "redirect" for r in train], vocab)
        for r in (r for r in rows if fold(r) == k):
            score = b + sum(w[vocab[f]] for f in features(r["text"], grammar) if f in vocab)
            said = 1.0 / (1.0 + math.exp(-score)) > 0.5
            found += said and r["label"] == "redirect"
            taken += said and r["label"] != "redirect"
    return found, sum(r["label"] == "redirect" for r in rows), taken, sum(r["label"] != "redirect" for r in rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--folds", type=int, default=5, help="folds, cut by a hash of the repository owner")
    ap.add_argument("--min-count", type=int, default=2, help="features seen fewer times in training are dropped")
    args = ap.parse_args()
    rows = [r for r in csv.DictReader(CORPUS.open(encoding="utf-8")) if r["split"] == "tune"]
    for grammar in (False, True):
        found, reds, taken, nears = cross_validate(rows, args.folds, args.min_count, grammar)
        name = "words and the grammar's verdict" if grammar else "words alone"
        print(f"{name:32}  recognised {found}/{reds} ({found / reds:.1%})  near misses taken {taken}/{nears} ({taken / nears:.1%})")


if __name__ == "__main__":
    main()
