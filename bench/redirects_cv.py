"""Would a model trained on the labelled comments read redirects better than the sentence grammar?
Cross-validated on the tune split alone, so the held-out split stays unread.

    python bench/redirects_cv.py [--folds 5] [--min-count 2] [--embeddings]

Trains a logistic regression (numpy, L2) on each comment's words and word pairs, addresses and
mailboxes replaced by the venue they name, with folds cut by a hash of the repository owner as the
held-out split is. Prints recall and near misses taken out of fold, once for words alone and once
with the grammar's verdict (its kind of sentence, a welcome) added as features. The grammar was
written looking at every tune row, so the second figure flatters it; the first is the honest
estimate of what the words alone teach a model.

`--embeddings` asks instead whether a pretrained model carries further than the words: each
sentence of a comment (quotes and code set aside) as a WordLlama embedding (`l2_supercat`, 256
dimensions, distilled from a large language model's token embeddings; MIT; its weights ship in
the wheel: `pip install wordllama==0.4.0.post1`, not a dependency of Porchlamp), the comment as
the maximum and the mean of its sentences, the same regression on them. The package looks for
its tokenizer in a folder it does not ship and then downloads it; here it is pointed at the
files in the wheel and never downloads.
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


def descend(a: np.ndarray, y: np.ndarray, epochs: int, l2: float, rate: float = 0.5) -> tuple[np.ndarray, float]:
    """Weights and bias of an L2 logistic regression on the rows of `a`, by plain gradient descent."""
    w, b = np.zeros(a.shape[1]), 0.0
    for _ in range(epochs):
        p = 1.0 / (1.0 + np.exp(-(a @ w + b)))
        w -= rate * (a.T @ (p - y) + l2 * w) / len(y)
        b -= rate * float(np.mean(p - y))
    return w, b


def fit(xs: list[set[str]], ys: list[bool], vocab: dict[str, int], epochs: int = 300, l2: float = 1.0,
        rate: float = 0.5) -> tuple[np.ndarray, float]:
    """`descend` on the features in `vocab`, each present or not."""
    a = np.zeros((len(xs), len(vocab)))
    for i, x in enumerate(xs):
        for f in x:
            if f in vocab:
                a[i, vocab[f]] = 1.0
    return descend(a, np.array(ys, dtype=float), epochs, l2, rate)


def owner_fold(r: dict[str, str], folds: int) -> int:
    """A comment's fold, by a hash of its repository's owner (as the held-out split is cut)."""
    return int(hashlib.sha256(("cv" + r["url"].split("/")[3].lower()).encode()).hexdigest(), 16) % folds


def cross_validate(rows: list[dict[str, str]], folds: int, min_count: int, grammar: bool) -> tuple[int, int, int, int]:
    """(redirects recognised, redirects, near misses taken, near misses) out of fold."""
    found = taken = 0
    for k in range(folds):
        train = [r for r in rows if owner_fold(r, folds) != k]
        xs = [features(r["text"], grammar) for r in train]
        counts = Counter(f for x in xs for f in x)
        vocab = {f: i for i, f in enumerate(sorted(f for f, n in counts.items() if n >= min_count))}
        w, b = fit(xs, [r["label"] == "redirect" for r in train], vocab)
        for r in (r for r in rows if owner_fold(r, folds) == k):
            score = b + sum(w[vocab[f]] for f in features(r["text"], grammar) if f in vocab)
            said = 1.0 / (1.0 + math.exp(-score)) > 0.5
            found += said and r["label"] == "redirect"
            taken += said and r["label"] != "redirect"
    return found, sum(r["label"] == "redirect" for r in rows), taken, sum(r["label"] != "redirect" for r in rows)


def embedded(rows: list[dict[str, str]]) -> np.ndarray:
    """Each comment as the maximum and mean of its sentences' WordLlama embeddings, standardised."""
    import tempfile

    try:
        import wordllama
    except ImportError:
        sys.exit("redirects_cv: --embeddings needs WordLlama: pip install wordllama==0.4.0.post1")
    shipped = Path(wordllama.__file__).parent
    with tempfile.TemporaryDirectory() as cache:
        for sub, name in (("tokenizers", "l2_supercat_tokenizer_config.json"), ("weights", "l2_supercat_256.safetensors")):
            (Path(cache) / sub).mkdir()
            (Path(cache) / sub / name).symlink_to(shipped / sub / name)
        model = wordllama.WordLlama.load(cache_dir=cache, disable_download=True)
    out = []
    for r in rows:
        plain = redirect._QUOTED_LINE.sub(" ", redirect._CODE.sub(" ", r["text"]))
        sentences = [t.strip() for t in re.split(r"(?<=[.!?])\s+|\n+", plain) if len(t.strip()) > 3] or ["(nothing)"]
        e = model.embed(sentences, norm=True)
        out.append(np.concatenate([e.max(0), e.mean(0)]))
    x = np.array(out)
    return (x - x.mean(0)) / (x.std(0) + 1e-6)


def cross_validate_embedded(rows: list[dict[str, str]], folds: int, l2: float) -> tuple[int, int, int, int]:
    """As `cross_validate`, on the embeddings."""
    x, y = embedded(rows), np.array([r["label"] == "redirect" for r in rows], dtype=float)
    fold = np.array([owner_fold(r, folds) for r in rows])
    said = np.zeros(len(rows), dtype=bool)
    for k in range(folds):
        train = fold != k
        w, b = descend(x[train], y[train], 2000, l2)
        said[~train] = x[~train] @ w + b > 0
    return int((said & (y == 1)).sum()), int(y.sum()), int((said & (y == 0)).sum()), int((y == 0).sum())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--folds", type=int, default=5, help="folds, cut by a hash of the repository owner")
    ap.add_argument("--min-count", type=int, default=2, help="features seen fewer times in training are dropped")
    ap.add_argument("--embeddings", action="store_true", help="a pretrained model's sentence embeddings instead of words")
    args = ap.parse_args()
    rows = [r for r in csv.DictReader(CORPUS.open(encoding="utf-8")) if r["split"] == "tune"]
    if args.embeddings:
        for l2 in (1.0, 10.0):
            found, reds, taken, nears = cross_validate_embedded(rows, args.folds, l2)
            print(f"embeddings, L2 {l2:<5}  recognised {found}/{reds} ({found / reds:.1%})  near misses taken {taken}/{nears} ({taken / nears:.1%})")
        return
    for grammar in (False, True):
        found, reds, taken, nears = cross_validate(rows, args.folds, args.min_count, grammar)
        name = "words and the grammar's verdict" if grammar else "words alone"
        print(f"{name:32}  recognised {found}/{reds} ({found / reds:.1%})  near misses taken {taken}/{nears} ({taken / nears:.1%})")


if __name__ == "__main__":
    main()
