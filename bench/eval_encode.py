"""Encoding overhead: polyprobe's ``st:`` encoder (through the evaluation's encode path, with
the embedding cache disabled) next to sentence-transformers' own ``encode`` on the same texts,
interleaved rounds, medians. The ratio is the figure of merit (target: ≤ 10% overhead).

    python bench/eval_encode.py --model PATH --trec FOLDER [--rounds 3] [--n 500]
"""

from __future__ import annotations

import argparse
import statistics
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--model", required=True, help="a sentence-transformers model folder")
    ap.add_argument("--trec", required=True, help="a `polyprobe build trec` folder")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--n", type=int, default=500, help="questions (TREC test first)")
    args = ap.parse_args()

    from sentence_transformers import SentenceTransformer

    from polyprobe.evaluation.cache import EmbeddingCache, encode_cached
    from polyprobe.evaluation.data import load_config, read_card
    from polyprobe.evaluation.encoders import build_encoder

    card = read_card(args.trec, None)
    cfg = load_config(args.trec, "coarse", None, card, None)
    items = [r[0] for s in ("test", "train") for r in cfg.items(s)][: args.n]
    texts = [it.text for it in items]
    enc = build_encoder(f"st:{args.model}")
    enc.device_request = "cpu"
    lib = SentenceTransformer(args.model, device="cpu")
    store = EmbeddingCache(enabled=False)
    enc.encode(items[:8])  # load weights once, outside the timings
    lib.encode(texts[:8])
    ours, theirs = [], []
    for r in range(args.rounds):
        t = time.perf_counter()
        encode_cached(enc, items, store, 32)
        ours.append(time.perf_counter() - t)
        t = time.perf_counter()
        lib.encode(texts, batch_size=32)
        theirs.append(time.perf_counter() - t)
        print(f"round {r}: polyprobe {ours[-1]:.2f} s  sentence-transformers {theirs[-1]:.2f} s")
    mo, mt = statistics.median(ours), statistics.median(theirs)
    print(
        f"median over {args.rounds}: polyprobe {len(items) / mo:.0f} texts/s, "
        f"sentence-transformers {len(items) / mt:.0f} texts/s, overhead {100 * (mo / mt - 1):+.1f}%"
    )


if __name__ == "__main__":
    main()
