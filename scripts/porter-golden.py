#!/usr/bin/python3
"""Write the Porter golden list scoring/testdata/porter_golden.tsv.

Run ONCE with Debian's interpreter and python3-nltk (NLTK 3.8), not a pyenv
python:

    apt-get install -y python3-nltk wamerican
    /usr/bin/python3 scripts/porter-golden.py \
        /usr/share/dict/american-english scripts/porter-golden-chat.txt \
        > scoring/testdata/porter_golden.tsv

Each line is "<word>\t<stem>" where stem = nltk.stem.PorterStemmer().stem(word)
(default mode NLTK_EXTENSIONS, the stemmer LoCoMo's F1 uses). The word set:
every argument file's whitespace tokens as they are, their lower-cased forms,
the forms LoCoMo's normalisation produces (ASCII punctuation dropped), a
deterministic set of inflected forms built from dictionary words, and
pseudo-words that walk the rules' corner cases. scoring/porter_test.go checks
that arbor's Go stemmer gives the identical stem for every line.
"""
import random
import string
import sys

import nltk
from nltk.stem import PorterStemmer

SUFFIXES = [
    "s", "es", "ies", "ied", "ed", "ing", "ly", "ally", "ness", "ful", "fully",
    "fulness", "ation", "ational", "tional", "ization", "izer", "ize", "ise",
    "ator", "alism", "alize", "aliti", "iviti", "biliti", "bli", "abli", "alli",
    "entli", "eli", "ousli", "ousness", "iveness", "icate", "ative", "iciti",
    "ical", "ance", "ence", "er", "ers", "ic", "able", "ible", "ant", "ement",
    "ment", "ent", "ion", "sion", "tion", "ou", "ism", "ate", "iti", "ous",
    "ive", "logi", "logy", "eed", "y", "e", "ll", "ss", "sses",
]


def tokens(path):
    punct = set(string.punctuation)
    with open(path, encoding="utf-8") as f:
        for line in f:
            for tok in line.split():
                yield tok
                low = tok.lower()
                yield low
                bare = "".join(ch for ch in low if ch not in punct)
                if bare:
                    yield bare


def main(paths):
    words = set()
    dict_words = []
    for p in paths:
        for t in tokens(p):
            words.add(t)
            if t.isalpha() and t.islower() and t.isascii():
                dict_words.append(t)
    rng = random.Random(20240601)
    bases = sorted(set(dict_words))
    for base in rng.sample(bases, min(3000, len(bases))):
        for suf in rng.sample(SUFFIXES, 6):
            words.add(base + suf)
    letters = "aeiouybcdlnrstgzwxmp"
    for _ in range(8000):
        n = rng.randint(3, 10)
        stem = "".join(rng.choice(letters) for _ in range(n))
        words.add(stem)
        words.add(stem + rng.choice(SUFFIXES))
    ps = PorterStemmer()
    out = sys.stdout
    out.write("# nltk %s PorterStemmer() default mode; word<TAB>stem\n" % nltk.__version__)
    for w in sorted(words):
        if "\t" in w or "\n" in w or "\r" in w or w.startswith("#"):
            continue
        s = ps.stem(w)
        if "\t" in s or "\n" in s:
            continue
        out.write("%s\t%s\n" % (w, s))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: porter-golden.py WORDLIST_OR_TEXT...")
    main(sys.argv[1:])
