#!/usr/bin/python3
"""Write scoring/testdata/locomo_f1_golden.jsonl: LoCoMo category scores
computed in Python, for scoring/locomo_test.go to compare against.

Run with Debian's interpreter (python3-nltk, python3-regex):

    /usr/bin/python3 scripts/locomo-f1-golden.py scripts/porter-golden-chat.txt \
        > scoring/testdata/locomo_f1_golden.jsonl

The rules are those of snap-research/locomo task_eval/evaluation.py, written
out independently here: normalisation (commas deleted, lower-case, ASCII
punctuation dropped, whole words a/an/the/and blanked with the `regex`
module, whitespace collapsed), NLTK PorterStemmer() stems, multiset F1;
category 1 splits on commas and averages the best part F1 over gold parts;
category 3 keeps the gold before its first ';'; category 5 checks for the
two abstention phrases.
"""
import json
import random
import string
import sys
from collections import Counter

import regex
from nltk.stem import PorterStemmer

STEM = PorterStemmer().stem
PUNCT = frozenset(string.punctuation)
ARTICLES = regex.compile(r"\b(?:a|an|the|and)\b")


def norm(text):
    text = text.replace(",", "").lower()
    text = "".join(c for c in text if c not in PUNCT)
    return " ".join(ARTICLES.sub(" ", text).split())


def toks(text):
    return [STEM(w) for w in norm(text).split()]


def f1(pred, gold):
    p, g = toks(pred), toks(gold)
    shared = sum((Counter(p) & Counter(g)).values())
    if shared == 0:
        return 0.0
    prec, rec = shared / len(p), shared / len(g)
    return 2 * prec * rec / (prec + rec)


def score(cat, pred, gold):
    if cat == 1:
        preds = [x.strip() for x in pred.split(",")]
        golds = [x.strip() for x in gold.split(",")]
        return sum(max(f1(p, g) for p in preds) for g in golds) / len(golds)
    if cat == 3:
        return f1(pred, gold.split(";")[0].strip())
    if cat == 5:
        low = pred.lower()
        return 1.0 if ("no information available" in low or "not mentioned" in low) else 0.0
    return f1(pred, gold)


EDGE = [
    (1, "", "Paris, London"), (2, "The", "the"), (4, "a an the and", "A"), (3, "hiking; camping", "hiking; camping"),
    (5, "This was Not Mentioned in the chat.", "x"), (5, "No information available.", ""), (5, "I don't know", "x"),
    (1, "pottery, painting,camping", "camping, pottery"), (2, "7 May 2023", "May 7, 2023"), (4, "Straße İstanbul", "straße istanbul"),
    (2, "café-au-lait", "cafe au lait"), (4, "an apple and a pear", "apple pear pear"), (3, ";", ";"),
    (1, ",,,", ","), (2, "running runs ran", "run"), (4, "ΟΔΥΣΣΕΥΣ", "οδυσσευς"), (2, "the\u00a0cat\x1csat", "cat sat"),
]


def main(path):
    rng = random.Random(7)
    words = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            words.extend(line.split())
    out = sys.stdout
    cases = list(EDGE)
    for _ in range(3000):
        cat = rng.randint(1, 5)
        i = rng.randrange(len(words) - 12)
        gold_words = words[i:i + rng.randint(1, 4)]
        if cat == 1:
            gold = ", ".join(" ".join(words[j:j + rng.randint(1, 3)]) for j in rng.sample(range(i, i + 9), rng.randint(1, 3)))
        elif cat == 3:
            gold = " ".join(gold_words) + "; " + " ".join(words[i + 5:i + 8])
        else:
            gold = " ".join(gold_words)
        pool = gold_words + words[i + 4:i + 12] + ["a", "the", "and", ","]
        pred = " ".join(rng.sample(pool, rng.randint(0, min(8, len(pool)))))
        if cat == 5 and rng.random() < 0.3:
            pred += rng.choice([" Not mentioned.", " no information available", " NOT MENTIONED"])
        cases.append((cat, pred, gold))
    for cat, pred, gold in cases:
        out.write(json.dumps({"category": str(cat), "prediction": pred, "gold": gold,
                              "score": score(cat, pred, gold)}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: locomo-f1-golden.py TEXTFILE")
    main(sys.argv[1])
