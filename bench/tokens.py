"""How close the token estimate (llm/tokens.py) comes to a real tokenizer: Gemma 3's, through a
llama-cpp-python server (.ci/real_server), on the project's corpora, LoCoMo's turns, the prompts and the
degenerate output a tiny model writes.

    .ci/real_server && .real-server/venv/bin/python -m llama_cpp.server \\
        --model .real-server/gemma-3-270m-q4_k_m.gguf --port 8765 &
    .venv/bin/python bench/tokens.py --server http://127.0.0.1:8765

Prints, per corpus, the estimate's total against the real count (1.00x is exact; under 1 undercounts, which
lets a prompt past its budget) and the lowest ratio of any one text, for the estimate and for plain UTF-8
bytes / 4 (the estimate before it also counted words, marks and line breaks).
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from llm.tokens import estimate_tokens  # noqa: E402

LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
DEGENERATE = ["cat\n" * 200, "Say hi jederzeit\nSay\n" * 50, '{\n    "model": "model_10",\n    "name": "x",\n' * 20]


def corpora() -> dict[str, list[str]]:
    """Return the texts to count, by corpus."""
    bench = Path(__file__).parent
    texts = {name: [entry["text"] for entry in json.loads((bench / f"{name}_corpus.json").read_text())]
             for name in ("extraction", "secrets", "style")}
    if LOCOMO.exists():
        sample = json.loads(LOCOMO.read_text())[0]["conversation"]
        texts["locomo turns"] = [turn["text"] for key, turns in sample.items()
                                 if key.startswith("session_") and isinstance(turns, list) for turn in turns][:400]
    texts["prompts"] = [(ROOT / "prompts" / name).read_text()
                        for name in ("extract_facts.md", "character.md", "rules.md")]
    texts["degenerate output"] = DEGENERATE
    return texts


def real_count(server: str, text: str) -> int:
    """Return the tokens the server's tokenizer makes of `text`, without its BOS."""
    request = urllib.request.Request(
        server.rstrip("/").removesuffix("/v1") + "/extras/tokenize/count",
        data=json.dumps({"input": text}).encode(), headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)["count"] - 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True, help="base URL of a llama-cpp-python server")
    args = parser.parse_args()
    print(f"{'corpus':18} {'texts':>5} {'real':>7}   {'estimate':>8} {'lowest':>6}   {'bytes/4':>7} {'lowest':>6}")
    for name, texts in corpora().items():
        real = [real_count(args.server, text) for text in texts]
        estimate = [estimate_tokens(text) for text in texts]
        plain = [len(text.encode("utf-8")) // 4 + 1 for text in texts]
        lowest = [min(e / r for e, r in zip(counts, real, strict=True) if r) for counts in (estimate, plain)]
        print(f"{name:18} {len(texts):5} {sum(real):7}   {sum(estimate) / sum(real):7.2f}x {lowest[0]:6.2f}"
              f"   {sum(plain) / sum(real):6.2f}x {lowest[1]:6.2f}")


if __name__ == "__main__":
    main()
